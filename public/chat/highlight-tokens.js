// Highlighted code as data, not HTML (issue 37): highlight.js writes HTML (classed <span>s
// around escaped text), and sanitizing that HTML on the page (DOMPurify) cost 34-35 ms of a
// 4x-throttled main thread per block, in the task that received it. Instead, whoever runs
// highlight.js (highlight-worker.js, or code-highlight.js's idle path) turns its output into
// a token tree here, and the page builds the nodes with createElement, className and text
// nodes: safe by construction (no HTML from model output is ever parsed on the page), no
// sanitizer pass. The tree is the same one the HTML parser makes of highlight.js's HTML, so
// a block looks as it did when its HTML was sanitized.

/**
 * A token: text, or a span `[className, children]`.
 * @typedef {string | Span} Token
 * @typedef {[className: string, children: Token[]]} Span
 */

/** The five characters highlight.js escapes (its escapeHTML), back. */
const ENTITIES = /** @type {Record<string, string>} */ ({ "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" });
const decode = (/** @type {string} */ text) => text.replace(/&(?:amp|lt|gt|quot|#x27);/g, (entity) => ENTITIES[entity] ?? entity);

/**
 * highlight.js's HTML as tokens. That HTML is only `<span class="…">`, `</span>` and text
 * whose `&<>"'` are escaped (highlight.js's HTML renderer), so these three are all there is
 * to read; anything else (not highlight.js's) gives null and the block stays plain.
 * @returns {Token[] | null}
 */
export function tokensOf(/** @type {string} */ html) {
  /** @type {Token[]} */
  const root = [];
  /** @type {Token[][]} */
  const open = [root];
  for (const [part, className] of html.matchAll(/<span class="([\w .:-]*)">|<\/span>|[^<]+|</g)) {
    const into = /** @type {Token[]} */ (open[open.length - 1]);
    if (className !== undefined) {
      /** @type {Token[]} */
      const children = [];
      into.push([className, children]);
      open.push(children);
    } else if (part === "</span>") {
      if (open.length === 1) return null;
      open.pop();
    } else if (part === "<") return null;
    else into.push(decode(part));
  }
  return open.length === 1 ? root : null;
}

/** A class list as a token may give it: words of letters, digits and `_-.:` (highlight.js's scopes). */
const CLASS = /^[\w .:-]*$/;

/**
 * The nodes of a token tree, made with DOM calls (text is only ever text). Checks the shape
 * of what it is given (it came over postMessage): null if anything is not a token.
 * @returns {Node[] | null}
 */
export function nodesOf(/** @type {unknown} */ tokens) {
  if (!Array.isArray(tokens)) return null;
  /** @type {Node[]} */
  const nodes = [];
  for (const token of tokens) {
    if (typeof token === "string") {
      nodes.push(document.createTextNode(token));
      continue;
    }
    if (!Array.isArray(token) || token.length !== 2 || typeof token[0] !== "string" || !CLASS.test(token[0])) return null;
    const children = nodesOf(token[1]);
    if (!children) return null;
    const span = document.createElement("span");
    span.className = token[0];
    span.append(...children);
    nodes.push(span);
  }
  return nodes;
}
