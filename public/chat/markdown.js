// Model answers as Markdown: markdown-it (CommonMark plus tables and strikethrough)
// turns the text into HTML and DOMPurify cleans that before it reaches the page.
// Both are the browser builds their npm packages ship, in public/vendor/ (see
// VERSIONS.txt there and scripts/vendor-page-libs.mjs).
//
// - Raw HTML is off: `<script>` or `<img onerror=…>` in an answer is shown as text.
// - Links: http(s), mailto and relative ones only; `[x](javascript:…)`, `data:`,
//   `vbscript:` and other schemes are refused and read as the text that was written.
//   Links open in a new tab with rel="noopener noreferrer".
// - Images are shown as links to them (the page makes no external requests).
// - `2*3*4`: a `*` between two digits is a times sign, not emphasis.
// - Headings start at h3 (the page's own h1/h2 stay above them).
// - The shared page renders answers with the same rules on the Worker
//   (src/share/share-markdown.ts): a change to them belongs in both.
// - Code blocks are highlighted by highlight.js (vendored too) as classed spans, which
//   DOMPurify lets through like the rest; they get their language and a copy button.
import MarkdownIt from "../vendor/markdown-it/markdown-it.esm.min.mjs";
import DOMPurify from "../vendor/dompurify/purify.es.mjs";
import hljs from "../vendor/highlight.js/highlight.min.js";
import { watchCodeScroll } from "./code-scroll.js";

/**
 * A fenced block in a language highlight.js knows (its common set: Python, JavaScript,
 * TypeScript, shell, JSON, SQL, Go, Rust…) comes back as its escaped code in classed
 * `<span>`s; any other stays plain (markdown-it escapes it). No guessing of unnamed ones.
 */
function highlight(code, lang) {
  const name = String(lang ?? "").trim();
  if (!name || !hljs.getLanguage(name)) return "";
  const key = `${name}\u0000${code}`;
  const known = highlighted.get(key);
  if (known !== undefined) return known;
  let html = "";
  try {
    html = hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  } catch {
    html = "";
  }
  highlighted.set(key, html);
  if (highlighted.size > HIGHLIGHTED_KEPT) highlighted.delete(highlighted.keys().next().value ?? "");
  return html;
}

/**
 * The last few blocks highlighted, by language and code: a closed fence stays in a
 * streamed answer's open tail for a render or two more (until the blocks after it are
 * complete), and each of those renders would highlight it again. Same input, same HTML.
 * @type {Map<string, string>}
 */
const highlighted = new Map();
const HIGHLIGHTED_KEPT = 8;

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false, highlight });

const ALLOWED_SCHEMES = new Set(["http", "https", "mailto"]);
/** markdown-it asks this of every link, autolink and linkified URL; a refused one stays text. */
md.validateLink = (url) => {
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(url);
  return !scheme || ALLOWED_SCHEMES.has(scheme[1].toLowerCase());
};

const isDigit = (code) => code >= 0x30 && code <= 0x39;
/** A run of `*` with a digit on both sides (`2*3*4`, `10**6`) is text, never an emphasis delimiter. */
md.inline.ruler.before("emphasis", "times_sign", (state, silent) => {
  const start = state.pos;
  if (state.src.charCodeAt(start) !== 0x2a || !isDigit(state.src.charCodeAt(start - 1))) return false;
  let end = start;
  while (end < state.posMax && state.src.charCodeAt(end) === 0x2a) end++;
  if (!isDigit(state.src.charCodeAt(end))) return false;
  if (!silent) state.pending += state.src.slice(start, end);
  state.pos = end;
  return true;
});

md.core.ruler.push("page_tags", (state) => {
  for (const token of state.tokens) {
    // # → h3 … #### and below → h6.
    if (token.type === "heading_open" || token.type === "heading_close") token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
    // Table alignment as data-align, so no style attribute is ever needed.
    if ((token.type === "th_open" || token.type === "td_open") && token.attrs) {
      const align = /text-align:(left|right|center)/.exec(token.attrGet("style") ?? "")?.[1];
      token.attrs = align ? [["data-align", align]] : null;
    }
  }
});

md.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const src = token.attrGet("src") ?? "";
  const alt = self.renderInlineAsText(token.children ?? [], options, env) || src;
  return `<a href="${md.utils.escapeHtml(src)}" class="image-link">${md.utils.escapeHtml(alt)}</a>`;
};

const PURIFY = {
  ALLOWED_TAGS: [
    "a",
    "p",
    "br",
    "strong",
    "em",
    "s",
    "code",
    "pre",
    "span",
    "blockquote",
    "ul",
    "ol",
    "li",
    "hr",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
  ],
  ALLOWED_ATTR: ["href", "title", "class", "start", "data-align"],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
  RETURN_DOM_FRAGMENT: true,
};

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

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

/** Elements whose children are all blocks: the line breaks markdown-it writes between those are not text. */
const BLOCK_PARENTS = new Set(["UL", "OL", "BLOCKQUOTE", "TABLE", "THEAD", "TBODY", "TR"]);

/** Drops those line breaks, so an answer's text is what it says (no stray "\n" in textContent). */
function dropLayoutWhitespace(fragment) {
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  /** @type {Text[]} */
  const drop = [];
  for (let node = /** @type {Text | null} */ (walker.nextNode()); node; node = /** @type {Text | null} */ (walker.nextNode())) {
    if (!node.data.trim() && (node.parentNode === fragment || BLOCK_PARENTS.has(node.parentNode.nodeName))) drop.push(node);
  }
  for (const node of drop) node.remove();
  return fragment;
}

/**
 * A code block as a figure: its language (`data-lang`, shown by CSS) and a copy button
 * (copy.js) above the `<pre>`. Made with DOM calls after sanitizing, so the chrome is
 * never HTML from the answer; labels are CSS content, so the answer's text is unchanged.
 */
function decorateCode(fragment) {
  for (const pre of [...fragment.querySelectorAll("pre")]) {
    const code = pre.firstElementChild;
    if (code?.tagName !== "CODE") continue;
    const figure = document.createElement("figure");
    figure.className = "code-block";
    const lang = /(?:^|\s)language-(\S+)/.exec(code.className)?.[1];
    if (lang) figure.dataset.lang = lang;
    const head = document.createElement("figcaption");
    head.className = "code-head";
    const label = document.createElement("span");
    label.className = "code-lang";
    if (lang) label.dataset.lang = lang;
    const copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy-code";
    copy.setAttribute("aria-label", lang ? `Copy ${lang} code` : "Copy code");
    copy.title = "Copy code";
    head.append(label, copy);
    pre.replaceWith(figure);
    figure.append(head, pre);
    watchCodeScroll(pre);
  }
  return fragment;
}

/**
 * A fenced block the text has not closed yet (its closing line has not arrived): shown
 * without highlighting, so a growing code block costs no highlighting per delta. The
 * closing line is CommonMark's: up to 3 spaces, the fence's character at least as many
 * times, then only spaces.
 */
function openFence(block, lines) {
  const token = block[0];
  if (token.type !== "fence" || !token.map) return false;
  const last = lines[token.map[1] - 1] ?? "";
  const closing = new RegExp(`^ {0,3}${token.markup[0] === "`" ? "`" : "~"}{${token.markup.length},}[ \\t]*$`);
  return token.map[1] - 1 === token.map[0] || !closing.test(last);
}

const PLAIN = { ...md.options, highlight: null };

/** The HTML of each block; the last one plain if it is a fence still open. */
function blocksHtml(blocks, text, env) {
  const lines = blocks.length > 0 && blocks[blocks.length - 1][0].type === "fence" ? text.split("\n") : [];
  return blocks.map((block, i) => md.renderer.render(block, i === blocks.length - 1 && openFence(block, lines) ? PLAIN : md.options, env));
}

/**
 * Changed blocks are sanitized in one DOMPurify call (each call parses its input into a
 * new document: dozens of calls for a burst of blocks cost far more than one). Each
 * block's HTML goes in a <section> of its own, which markdown-it never writes (raw HTML
 * is off), so the sections that come out are the blocks, unwrapped here.
 */
const PURIFY_BLOCKS = { ...PURIFY, ALLOWED_TAGS: [...PURIFY.ALLOWED_TAGS, "section"] };

/** The DOM of each block's HTML: sanitized, layout whitespace dropped, code blocks decorated. */
function blocksNodes(htmls) {
  if (htmls.length === 0) return [];
  const fragment = /** @type {DocumentFragment} */ (
    /** @type {unknown} */ (DOMPurify.sanitize(htmls.map((html) => `<section>${html}</section>`).join(""), PURIFY_BLOCKS))
  );
  const sections = [...fragment.children];
  return htmls.map((html, i) => {
    const part = document.createDocumentFragment();
    part.append(...(sections[i]?.childNodes ?? []));
    decorateCode(dropLayoutWhitespace(part));
    return { html, nodes: [...part.childNodes], fragment: part };
  });
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
 * holding those blocks, `inLast` how many blocks the last one holds; `tail` the HTML and
 * nodes of each block from there on, directly in the element; `whole` true once the text
 * defines link references (`[x]: url`), which can change blocks above them: such an
 * answer is parsed whole each time.
 * @typedef {{ source: string, settled: number, chunks: HTMLElement[], inLast: number, tail: { html: string, nodes: Node[] }[], whole: boolean }} Rendered
 * @type {WeakMap<Element, Rendered>}
 */
const rendered = new WeakMap();

/**
 * Final blocks are kept in <section class="md-chunk"> elements of CHUNK blocks each: the
 * browser then lays out a few dozen children of the answer after each delta, not every
 * block of it (a flat 3,000-block answer costs about 30 ms of layout per delta; in chunks,
 * under 1 ms). Plain blocks without margins or padding of their own: the answer looks
 * the same. A fresh render makes the same chunks, so a reload shows the same DOM.
 */
const CHUNK = 32;

/** Moves the first `count` blocks of the tail into chunks. @param {Element} element @param {Rendered} state @param {number} count */
function settle(element, state, count) {
  for (const block of state.tail.slice(0, count)) {
    let chunk = state.chunks[state.chunks.length - 1];
    if (!chunk || state.inLast >= CHUNK) {
      chunk = document.createElement("section");
      chunk.className = "md-chunk";
      element.insertBefore(chunk, block.nodes[0] ?? null);
      state.chunks.push(chunk);
      state.inLast = 0;
    }
    chunk.append(...block.nodes);
    state.inLast++;
  }
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
 */
export function renderMarkdownInto(element, source) {
  const text = String(source ?? "");
  let state = rendered.get(element);
  const intact =
    state &&
    element.childNodes.length === state.chunks.length + state.tail.reduce((n, block) => n + block.nodes.length, 0) &&
    state.chunks.every((chunk) => chunk.parentNode === element) &&
    state.tail.every((block) => block.nodes.every((node) => node.parentNode === element));
  if (!state || !intact || !text.startsWith(state.source)) {
    element.replaceChildren();
    state = { source: "", settled: 0, chunks: [], inLast: 0, tail: [], whole: false };
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
  const html = blocksHtml(blocks, tailText, env);
  replaceChanged(element, state, html);
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
    settle(element, state, open);
    state.settled += lineOffset(tailText, blocks[open][0].map[0]);
  }
}

/** Keeps the tail's blocks whose HTML is unchanged, and replaces the rest. */
function replaceChanged(element, state, html) {
  let same = 0;
  while (same < state.tail.length && same < html.length && state.tail[same].html === html[same]) same++;
  for (const block of state.tail.slice(same)) for (const node of block.nodes) node.remove();
  const tail = state.tail.slice(0, same);
  for (const { fragment, ...block } of blocksNodes(html.slice(same))) {
    tail.push(block);
    element.append(fragment);
  }
  state.tail = tail;
}

/** An answer with link references: parsed whole each time, its changed blocks replaced. */
function renderWhole(element, state, text) {
  if (state.settled > 0) {
    element.replaceChildren();
    Object.assign(state, { settled: 0, chunks: [], inLast: 0, tail: [] });
  }
  const env = {};
  replaceChanged(element, state, blocksHtml(topLevelBlocks(md.parse(text, env)), text, env));
  state.source = text;
}

/** One line of inline Markdown (code, emphasis, links) into the element: for notices. */
export function renderInlineInto(element, source) {
  element.replaceChildren(DOMPurify.sanitize(md.renderInline(String(source ?? "")), PURIFY));
}
