// Answers as Markdown into the page (the rules and the sanitizing are markdown-setup.js's):
// a streamed answer is rendered again as it grows, and the work of each render does not
// grow with the answer: final blocks are kept, only the open tail is parsed again.
import { highlightLater } from "./code-highlight.js";
import { blocksNodes, md } from "./markdown-setup.js";

export { renderInlineInto } from "./markdown-setup.js";
// For markdown-load.js, the page's way in: this module is a chunk loaded after the page starts.
export { highlighted } from "./code-highlight.js";

/** Each top-level block of the tokens (a paragraph, a list, a table, a fence…) as a slice. */
function topLevelBlocks(tokens) {
  const blocks = [];
  for (let start = 0; start < tokens.length; start++) {
    let end = start;
    if (tokens[start].nesting === 1) while (end < tokens.length - 1 && !(tokens[end].level === 0 && tokens[end].nesting === -1)) end++;
    blocks.push(tokens.slice(start, end + 1));
    start = end;
  }
  return blocks;
}

/**
 * A fenced block the text has not closed yet (its closing line has not arrived): not
 * highlighted, so a growing code block costs no highlighting per delta. The closing line is CommonMark's: up to 3 spaces, the fence's character at least as many
 * times, then only spaces.
 */
function openFence(block, lines) {
  const token = block[0];
  if (token.type !== "fence" || !token.map) return false;
  const last = lines[token.map[1] - 1] ?? "";
  const closing = new RegExp(`^ {0,3}${token.markup[0] === "`" ? "`" : "~"}{${token.markup.length},}[ \\t]*$`);
  return token.map[1] - 1 === token.map[0] || !closing.test(last);
}

/**
 * The HTML of each block, every fence plain; `fences` says which ones code-highlight.js is
 * to highlight afterwards (a closed fence that names a language: the highlighter leaves the
 * ones in a language it does not know plain).
 * @returns {{ html: string[], fences: ({ text: string, lang: string } | null)[] }}
 */
function blocksHtml(blocks, text, env) {
  const lines = blocks.length > 0 && blocks[blocks.length - 1][0].type === "fence" ? text.split("\n") : [];
  /** @type {({ text: string, lang: string } | null)[]} */
  const fences = [];
  const html = blocks.map((block, i) => {
    const open = i === blocks.length - 1 && openFence(block, lines);
    const lang = !open && block[0].type === "fence" ? md.utils.unescapeAll(block[0].info).trim().split(/\s+/)[0] : "";
    fences.push(lang ? { text: block[0].content, lang } : null);
    return md.renderer.render(block, md.options, env);
  });
  return { html, fences };
}

/** Offset in `text` of the start of line `line` (0-based). */
function lineOffset(text, line) {
  let offset = 0;
  for (let i = 0; i < line && offset >= 0; i++) offset = text.indexOf("\n", offset) + 1 || -1;
  return offset < 0 ? text.length : offset;
}

/**
 * Per element, what it shows: `source` the text rendered; `settled` where its open tail
 * starts (blocks before it are final and never looked at again); `chunks` the elements
 * holding the blocks, `final` how many blocks are final; `tail` the HTML and nodes of each
 * block from there on (in the chunks too, after the final ones), and whether its code went
 * to the highlighter; `whole` true once the text defines link references (`[x]: url`),
 * which can change blocks above them: such an answer is parsed whole each time.
 * @typedef {{ source: string, settled: number, chunks: HTMLElement[], final: number, tail: { html: string, nodes: Node[], highlighted: boolean }[], whole: boolean }} Rendered
 * @type {WeakMap<Element, Rendered>}
 */
const rendered = new WeakMap();

/**
 * Blocks are kept in <section class="md-chunk"> elements of CHUNK blocks each, the n-th
 * block in chunk n / CHUNK: the browser then lays out a few dozen children of the answer
 * after each delta, not every block of it (a flat 3,000-block answer costs about 30 ms of
 * layout per delta; in chunks, under 1 ms). A block goes into its chunk when it is
 * rendered and stays there once final: a node moved is styled and laid out again, and
 * moving each final block from the answer into its chunk did that to every block of a
 * streamed answer twice (issue 37). Plain blocks without margins or padding of their own:
 * the answer looks the same. A fresh render makes the same chunks, so a reload shows the same DOM.
 * 8 blocks, not 32: a chunk in view is styled, laid out and painted whole (content-visibility
 * skips only chunks out of view), and a streaming answer's last chunk always is; at 8 a frame
 * paints half as much (bench:paint --throttle 1 --bar 12.5, alternating with 32, load 1.5-2.3:
 * Paint 338, 353 vs 780, 699 ms a turn, p90 1.4 vs 3.0 ms a frame; tasks 4x would make long
 * 12, 20 vs 30, 17). A 3,000-block answer is then 375 chunks, still far from a flat one.
 * A streaming answer's last five chunks are never skipped (call-looks.css): a new chunk
 * would start skipped and cost its frame a second style, layout and pre-paint.
 */
const CHUNK = 8;

/**
 * A streaming answer's last LIVE chunks are never skipped (call-looks.css): they carry the
 * class `md-live`. A class on the chunk made and the one it pushes out, not a
 * `:nth-last-child(-n + 5)` rule: with that rule, every chunk made restyled all the answer's
 * chunks (Blink restyles every sibling under a backward positional rule on insertion).
 */
const LIVE = 5;

/** Marks the last LIVE chunks live, and unmarks those before them (the marks are a run at the end). @param {Rendered} state */
function markLive(state) {
  const count = state.chunks.length;
  for (let at = count - 1; at >= 0; at--) {
    const chunk = /** @type {HTMLElement} */ (state.chunks[at]);
    if (at >= count - LIVE) chunk.classList.add("md-live");
    else if (chunk.classList.contains("md-live")) chunk.classList.remove("md-live");
    else break;
  }
}

/** The chunk of the `index`-th block, made (at the end) if it is not there yet. @param {Element} element @param {Rendered} state @param {number} index */
function chunkOf(element, state, index) {
  while (state.chunks.length <= Math.floor(index / CHUNK)) {
    const chunk = document.createElement("section");
    chunk.className = "md-chunk";
    element.append(chunk);
    state.chunks.push(chunk);
    markLive(state);
  }
  return /** @type {HTMLElement} */ (state.chunks[Math.floor(index / CHUNK)]);
}

/** The first `count` blocks of the tail are final (they stay where they are). @param {Rendered} state @param {number} count */
function settle(state, count) {
  state.final += count;
  state.tail = state.tail.slice(count);
}

/**
 * Replaces the element's content with the rendered Markdown. A streamed answer is
 * rendered again as it grows, and the work of each delta does not grow with the answer:
 * only the open tail (from the start of the last block that can still change) is parsed
 * again, and of it only the blocks whose HTML changed are sanitized and replaced.
 *
 * Markdown's block structure is decided line by line going forward: once a complete line
 * starts a new block (and the line after it is complete too: a table's delimiter row), the
 * blocks above it are closed (a setext underline changes only the block just above, which
 * is still open). So the blocks before the last such one are final. Link reference
 * definitions are the exception (they apply to the whole text): with one, the answer is
 * parsed whole each time, as before. Any other text than a continuation of what is shown
 * (another answer, a reload's stored version that differs) is rendered afresh.
 * Code blocks are shown plain, then highlighted off the main thread (code-highlight.js).
 * Returns how many characters it parsed (the open tail, or the whole text): what the
 * render's cost grows with (stream-render.js sizes its slices by it).
 * @param {Element} element @param {unknown} source @returns {number}
 */
export function renderMarkdownInto(element, source) {
  const text = String(source ?? "");
  let state = rendered.get(element);
  const intact =
    state &&
    element.childNodes.length === state.chunks.length &&
    state.chunks.every((chunk) => chunk.parentNode === element) &&
    state.tail.every((block) => block.nodes.every((node) => node.parentNode?.parentNode === element));
  if (!state || !intact || !text.startsWith(state.source)) {
    element.replaceChildren();
    state = { source: "", settled: 0, chunks: [], final: 0, tail: [], whole: false };
    rendered.set(element, state);
  }
  if (state.whole) return renderWhole(element, state, text);
  const tailText = text.slice(state.settled);
  const env = {};
  const blocks = topLevelBlocks(md.parse(tailText, env));
  if (Object.keys(env.references ?? {}).length > 0) {
    state.whole = true;
    return renderWhole(element, state, text);
  }
  replaceChanged(element, state, blocksHtml(blocks, tailText, env));
  state.source = text;
  // The blocks above the last one that starts on a complete line, followed by another
  // complete line, are final (a table is one only once its delimiter row is complete).
  const complete = tailText.split("\n").length - 1;
  let open = 0;
  for (let i = blocks.length - 1; i > 0; i--) {
    if ((blocks[i][0].map?.[0] ?? complete) + 1 < complete) {
      open = i;
      break;
    }
  }
  if (open > 0) {
    settle(state, open);
    state.settled += lineOffset(tailText, blocks[open][0].map[0]);
  }
  return tailText.length;
}

/** The <code> of a block's nodes that is a fence's, if any. @param {Node[]} nodes */
const fenceCode = (nodes) => (nodes[0] instanceof Element ? nodes[0].querySelector("pre > code") : null);

/**
 * Keeps the tail's blocks whose HTML is unchanged, and replaces the rest (their fences
 * highlighted later). A fence kept as it is but closed now (its closing line was all that
 * came: a slice cut at its last line, stream-render.js) has the same HTML as when it was
 * open, and is highlighted now.
 */
function replaceChanged(element, state, { html, fences }) {
  let same = 0;
  while (same < state.tail.length && same < html.length && state.tail[same].html === html[same]) {
    const fence = fences[same];
    const block = state.tail[same];
    if (fence && !block.highlighted) {
      const code = fenceCode(block.nodes);
      if (code) highlightLater(code, fence.text, fence.lang);
      block.highlighted = true;
    }
    same++;
  }
  for (const block of state.tail.slice(same)) for (const node of block.nodes) node.remove();
  const tail = state.tail.slice(0, same);
  for (const [i, { fragment, ...block }] of blocksNodes(html.slice(same)).entries()) {
    chunkOf(element, state, state.final + tail.length).append(fragment);
    const fence = fences[same + i];
    const code = fence ? fenceCode(block.nodes) : null;
    if (fence && code) highlightLater(code, fence.text, fence.lang);
    tail.push({ ...block, highlighted: Boolean(fence) });
  }
  state.tail = tail;
  // Chunks left empty at the end (the tail has fewer blocks now) go.
  const used = Math.ceil((state.final + tail.length) / CHUNK);
  const gone = state.chunks.splice(used);
  for (const chunk of gone) chunk.remove();
  if (gone.length > 0) markLive(state);
}

/** An answer with link references: parsed whole each time, its changed blocks replaced. */
function renderWhole(element, state, text) {
  if (state.settled > 0) {
    element.replaceChildren();
    Object.assign(state, { settled: 0, chunks: [], final: 0, tail: [] });
  }
  const env = {};
  replaceChanged(element, state, blocksHtml(topLevelBlocks(md.parse(text, env)), text, env));
  state.source = text;
  return text.length;
}
