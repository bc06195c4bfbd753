// A code block's colours as ranges of its text, from highlight.js's HTML: what
// highlight-worker.js sends the page instead of the HTML itself (numbers only, nothing to
// sanitize), and what code-highlight.js builds the block's spans from, one
// `<span class="hl-GROUP">` per coloured run. highlight.js's nesting is flattened (a span
// takes the colour code-looks.css gave its innermost coloured class), spans that colour
// nothing are dropped, and runs of one colour split only by white space are one span:
// fewer elements for the browser to style and lay out when a block is swapped in (issue 37).
// Used by the worker and by the page's own idle path, so both colour a block alike.

/**
 * highlight.js's classes (without `hljs-`) by colour group, as code-looks.css coloured its
 * spans: a class not here (hljs-variable, hljs-subst, hljs-operator…) takes the colour of
 * the span around it. Each group is a `.hl-NAME` rule in code-looks.css.
 */
const CLASSES = {
  keyword: ["keyword", "selector-tag", "doctag", "template-tag", "deletion"],
  string: ["string", "regexp", "char escape_"],
  comment: ["comment", "quote"],
  number: ["number", "literal", "variable constant_", "symbol", "bullet"],
  title: ["title", "section"],
  type: ["type", "built_in", "params", "meta"],
  attr: ["attr", "attribute", "name", "tag", "selector-class", "selector-id", "addition"],
};

/** The colour groups; a range's group is its index here. */
export const GROUPS = Object.keys(CLASSES);

/** @type {Record<string, number>} */
const GROUP_OF = Object.fromEntries(Object.values(CLASSES).flatMap((classes, group) => classes.map((name) => [name, group])));

/** A span's group from its class attribute ("hljs-title function_"), or -1 (inherits). */
function groupOf(/** @type {string} */ className) {
  const name = className.replace(/^hljs-/, "");
  const whole = GROUP_OF[name];
  if (whole !== undefined) return whole;
  // "title class_", "title function_": every title is a title.
  return GROUP_OF[name.split(" ")[0]] ?? -1;
}

/** The escapes highlight.js writes (its escapeHTML), each one character of the code. */
const ENTITY = /^&(?:amp|lt|gt|quot|#x27|#39);$/;

/**
 * highlight.js's HTML as flat triples [start, end, group, start, end, group, …] over the
 * code's characters (UTF-16 offsets, as a Text node counts them), pieces of one group
 * merged when only white space is between them. Its HTML is only `<span class="…">`, `</span>`, escaped text and entities.
 * @param {string} html
 * @returns {number[]}
 */
export function colourRanges(html) {
  /** @type {number[]} */
  const ranges = [];
  /** The effective group of each open span (-1: none). */
  const open = [-1];
  let at = 0;
  /** Only white space since the last range ended (the next of its group may extend it). */
  let blankSince = false;
  for (const [token, className] of html.matchAll(/<span class="([^"]*)">|<\/span>|&[#\w]+;|[^<&]+/g)) {
    if (className !== undefined) {
      const own = groupOf(className);
      open.push(own >= 0 ? own : open[open.length - 1]);
      continue;
    }
    if (token === "</span>") {
      if (open.length > 1) open.pop();
      continue;
    }
    const length = ENTITY.test(token) ? 1 : token.length;
    const group = open[open.length - 1];
    if (group >= 0) {
      const last = ranges.length - 3;
      if (last >= 0 && ranges[last + 2] === group && blankSince) ranges[last + 1] = at + length;
      else ranges.push(at, at + length, group);
      blankSince = true;
    } else if (!/^\s*$/.test(token)) blankSince = false;
    at += length;
  }
  return ranges;
}
