// An answer on a shared page as the chat shows it: Markdown (CommonMark, tables,
// strikethrough) rendered on the Worker by markdown-it, with the settings of the page's
// own renderer (public/chat/markdown-setup.js: a change to these rules belongs in both) minus code
// highlighting, since the shared page runs no script:
// - raw HTML is off: `<script>` or `<img onerror=…>` in an answer is shown as text;
// - links: http(s), mailto and relative ones only; any other scheme reads as the text written;
// - images are shown as links to them (the page's CSP loads no image from elsewhere);
// - `2*3*4`: a `*` between two digits is a times sign, not emphasis;
// - headings start at h3 (the page's own h1 stays above them).
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });

const ALLOWED_SCHEMES = new Set(["http", "https", "mailto"]);
md.validateLink = (url) => {
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  return scheme === undefined || ALLOWED_SCHEMES.has(scheme.toLowerCase());
};

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
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
    if (token.type === "heading_open" || token.type === "heading_close") token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
    // Table alignment as data-align: the page's CSP allows no style attribute.
    if ((token.type === "th_open" || token.type === "td_open") && token.attrs) {
      const align = /text-align:(left|right|center)/.exec(String(token.attrGet("style") ?? ""))?.[1];
      token.attrs = align ? [["data-align", align]] : null;
    }
  }
});

md.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const src = String(token?.attrGet("src") ?? "");
  const alt = (token ? self.renderInlineAsText(token.children ?? [], options, env) : "") || src;
  return `<a href="${md.utils.escapeHtml(src)}" class="image-link" rel="noopener noreferrer">${md.utils.escapeHtml(alt)}</a>`;
};

// A code block scrolls sideways (share.css): it takes focus so the keyboard can scroll it
// too (the page has no script to find out which ones are wider than the column).
for (const rule of ["fence", "code_block"] as const) {
  const base = md.renderer.rules[rule];
  md.renderer.rules[rule] = (tokens, index, options, env, self) =>
    (base?.(tokens, index, options, env, self) ?? "").replace(/^<pre>/, '<pre tabindex="0" role="region" aria-label="Code">');
}

md.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  tokens[index]?.attrSet("rel", "noopener noreferrer");
  return self.renderToken(tokens, index, options);
};

/** The answer's text as HTML: everything it holds is escaped except the Markdown's own tags. */
export function markdownHtml(text: string): string {
  return md.render(text);
}
