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

/** Elements whose last child may hold the text's continuation (a <code> only inside a <pre>). */
const INTO = new Set(["FIGURE", "PRE", "CODE", "UL", "OL", "LI", "BLOCKQUOTE", "TABLE", "THEAD", "TBODY", "TR", "TD", "TH", "P", "H3", "H4", "H5", "H6"]);
/** A closed fence's last line: what follows it is a new block, not more code. */
const CLOSED_FENCE = /(?:^|\n) {0,3}(?:`{3,}|~{3,})[ \t]*\n*$/;

/** Where text that continues `rendered` goes: the deepest last open element, or the answer itself for a new block. */
function placeOf(/** @type {HTMLElement} */ body, /** @type {string} */ rendered, /** @type {string} */ rest) {
  if (rendered === "") return body;
  /** @type {Element} */
  let at = body;
  for (let last = at.lastChild; last instanceof Element && INTO.has(last.nodeName) && (last.nodeName !== "CODE" || at.nodeName === "PRE"); last = at.lastChild)
    at = last;
  // Code goes on in its block (blank lines included) until its fence is closed.
  if (at.nodeName === "CODE") return CLOSED_FENCE.test(rendered) ? body : at;
  if (rendered.endsWith("\n\n") || (rendered.endsWith("\n") && rest.startsWith("\n"))) return body;
  return at;
}

/** @param {HTMLElement} body the answer's Markdown element */
export function createPlain(body) {
  /** @type {HTMLElement | null} */
  let box = null;
  /** @type {Text | null} */
  let node = null;
  let shown = "";

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
        if (rest.length > shown.length) node.appendData(rest.slice(shown.length));
        shown = rest;
        return;
      }
      clear();
      const at = placeOf(body, rendered, rest);
      box = document.createElement(at === body ? "div" : "span");
      box.className = "md-open";
      // The rendered text ended a line (markdown-it drops a paragraph's last line break): the
      // continuation starts on the next one, as it will once rendered. A <code>'s text has it.
      const newline = at !== body && at.nodeName !== "CODE" && rendered.endsWith("\n");
      node = document.createTextNode(newline ? `\n${rest}` : rest);
      box.append(node);
      at.append(box);
      shown = rest;
    },
  };
}
