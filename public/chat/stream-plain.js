// The part of a streaming answer that is not rendered yet, shown as plain text: between
// two Markdown renders (stream-render.js spaces them), each frame only appends the new
// characters to one text node. No parse, no DOMPurify, no new elements: the frame's cost
// is the layout and paint of a line or two. The next render replaces it with the real
// blocks; the last render leaves none, so a finished answer is exactly its Markdown.
//
// Where it goes: at the end of the last open block when the text continues it (a
// paragraph, a list item, a heading, a table cell, an open code fence's <code>), so a
// sentence keeps growing where it is; otherwise (a blank line ended the block, a fence
// was closed, the last block is final) in a block of its own after the answer. It is
// only ever inside the open tail's elements, never in a settled chunk (markdown.js never
// looks at those again).
//
// In a block of its own, the text is kept in pieces of about PIECE characters, each a
// block cut after a line end: a frame then lays out only the last piece, not all of the
// plain text again. Plain text gets long when rendering falls behind the stream (an open
// code block stays plain until its fence closes), and one text node of a few KB cost a
// 4x-throttled frame 25-40 ms of layout (bench/page-paint.ts --tasks). A line end closing a
// block is the same line break it was inside one (white-space: pre-wrap), so it looks the same.

/** Elements whose last child may hold the text's continuation (a <code> only inside a <pre>). */
const INTO = new Set(["FIGURE", "PRE", "CODE", "UL", "OL", "LI", "BLOCKQUOTE", "TABLE", "THEAD", "TBODY", "TR", "TD", "TH", "P", "H3", "H4", "H5", "H6"]);
/** A block of plain text starts a new piece at the first line end after this many characters. */
export const PIECE = 512;

/** A closed fence's last line: what follows it is a new block, not more code. */
const CLOSED_FENCE = /(?:^|\n) {0,3}(?:`{3,}|~{3,})[ \t]*\n*$/;

/** Where text that continues `rendered` goes: the deepest last open element, or the answer itself for a new block. */
function placeOf(/** @type {HTMLElement} */ body, /** @type {string} */ rendered, /** @type {string} */ rest) {
  if (rendered === "") return body;
  // The blocks are in chunks (markdown.js): the last block is the last chunk's.
  const chunk = body.lastElementChild?.classList.contains("md-chunk") ? body.lastElementChild : body;
  /** @type {Element} */
  let at = chunk;
  for (let last = at.lastChild; last instanceof Element && INTO.has(last.nodeName) && (last.nodeName !== "CODE" || at.nodeName === "PRE"); last = at.lastChild)
    at = last;
  if (at === chunk) return body;
  // Code goes on in its block (blank lines included) until its fence is closed.
  if (at.nodeName === "CODE") return CLOSED_FENCE.test(rendered) ? body : at;
  if (rendered.endsWith("\n\n") || (rendered.endsWith("\n") && rest.startsWith("\n"))) return body;
  return at;
}

/** @param {HTMLElement} body the answer's Markdown element */
export function createPlain(body) {
  /** @type {HTMLElement | null} */
  let box = null;
  /** The last piece's text (the box's own, inside another block). @type {Text | null} */
  let node = null;
  let shown = "";
  /** The box is a block of its own after the answer, so its text is kept in pieces. */
  let pieces = false;

  /** Appends `more` to the box: to its last piece, starting new ones at line ends when that is full. */
  function add(/** @type {string} */ more) {
    if (!node || !box) return;
    let rest = more;
    while (pieces && node.length + rest.length > PIECE) {
      // The first line end that fills the piece: up to it stays in this piece.
      const cut = rest.indexOf("\n", Math.max(0, PIECE - node.length - 1));
      if (cut < 0 || cut === rest.length - 1) break;
      node.appendData(rest.slice(0, cut + 1));
      rest = rest.slice(cut + 1);
      node = document.createTextNode("");
      const piece = document.createElement("div");
      piece.append(node);
      box.append(piece);
    }
    node.appendData(rest);
  }

  function clear() {
    box?.remove();
    box = null;
    node = null;
    shown = "";
  }

  return {
    clear,
    /**
     * Shows `rest`, the text after `rendered` (what the last render drew), plainly.
     * @param {string} rendered @param {string} rest
     */
    show(rendered, rest) {
      if (!rest) return clear();
      // The usual frame: the same place, a few more characters.
      if (node && box?.isConnected && rest.startsWith(shown)) {
        if (rest.length > shown.length) add(rest.slice(shown.length));
        shown = rest;
        return;
      }
      clear();
      const at = placeOf(body, rendered, rest);
      pieces = at === body;
      box = document.createElement(pieces ? "div" : "span");
      box.className = "md-open";
      // The rendered text ended a line (markdown-it drops a paragraph's last line break): the
      // continuation starts on the next one, as it will once rendered. A <code>'s text has it.
      const newline = at !== body && at.nodeName !== "CODE" && rendered.endsWith("\n");
      node = document.createTextNode(newline ? "\n" : "");
      if (pieces) {
        const piece = document.createElement("div");
        piece.append(node);
        box.append(piece);
      } else box.append(node);
      add(rest);
      at.append(box);
      shown = rest;
    },
  };
}
