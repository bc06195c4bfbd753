// Model answers as Markdown, the rules: markdown-it (CommonMark plus tables and
// strikethrough) turns the text into HTML and DOMPurify cleans that before it reaches the
// page. Both are the browser builds their npm packages ship, in public/vendor/ (see
// VERSIONS.txt there and scripts/vendor-page-libs.mjs). markdown.js renders answers with
// these (incrementally while they stream); this file is what the HTML may be.
//
// - Raw HTML is off: `<script>` or `<img onerror=…>` in an answer is shown as text.
// - Links, images, `2*3*4` and heading levels: src/share/markdown-rules.ts, the rules the
//   shared page renders answers by on the Worker too (bundled into the page by the build).
//   Links open in a new tab with rel="noopener noreferrer".
// - Code blocks get their language and a copy button here; highlight.js (vendored too) colours
//   them afterwards (code-highlight.js): spans the page builds from ranges, not HTML, so
//   nothing of it goes through DOMPurify.
import MarkdownIt from "../vendor/markdown-it/markdown-it.esm.min.mjs";
import DOMPurify from "../vendor/dompurify/purify.es.mjs";
import { applyAnswerRules } from "../../src/share/markdown-rules";
import { watchSideScroll } from "./side-scroll.js";

// No `highlight` option: every code block is rendered plain here and highlighted afterwards,
// off the main thread (code-highlight.js), so highlight.js is not in the page's bundle.
export const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });

applyAnswerRules(md);

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
    watchSideScroll(pre);
  }
  return fragment;
}

/**
 * Changed blocks are sanitized in one DOMPurify call (each call parses its input into a
 * new document: dozens of calls for a burst of blocks cost far more than one). Each
 * block's HTML goes in a <section> of its own, which markdown-it never writes (raw HTML
 * is off), so the sections that come out are the blocks, unwrapped here.
 */
const PURIFY_BLOCKS = { ...PURIFY, ALLOWED_TAGS: [...PURIFY.ALLOWED_TAGS, "section"] };

/** The DOM of each block's HTML: sanitized, layout whitespace dropped, code blocks decorated. */
export function blocksNodes(htmls) {
  if (htmls.length === 0) return [];
  const fragment = /** @type {DocumentFragment} */ (
    /** @type {unknown} */ (DOMPurify.sanitize(htmls.map((html) => `<section>${html}</section>`).join(""), PURIFY_BLOCKS))
  );
  const sections = [...fragment.children];
  return htmls.map((html, i) => {
    const part = document.createDocumentFragment();
    part.append(...(sections[i]?.childNodes ?? []));
    decorateCode(dropLayoutWhitespace(part));
    for (const table of part.querySelectorAll("table")) watchSideScroll(table);
    return { html, nodes: [...part.childNodes], fragment: part };
  });
}

/** One line of inline Markdown (code, emphasis, links) into the element: for notices. */
export function renderInlineInto(element, source) {
  element.replaceChildren(DOMPurify.sanitize(md.renderInline(String(source ?? "")), PURIFY));
}
