// The Markdown rules an answer is rendered by, in the chat page (public/chat/markdown-setup.js,
// bundled into the page) and on a shared page (share-markdown.ts, on the Worker): one place,
// so the two never disagree. No runtime import: the page passes its vendored markdown-it.
// - Links: http(s), mailto and relative ones only; any other scheme (`javascript:`, `data:`,
//   `vbscript:`) is refused and reads as the text that was written.
// - `2*3*4`: a `*` between two digits is a times sign, not emphasis.
// - Headings start at h3 (each page's own h1/h2 stay above them).
// - Table alignment as data-align: neither page's CSP allows a style attribute.
// - Images are links to them (neither page loads an image from elsewhere).
import type MarkdownIt from "markdown-it";

const ALLOWED_SCHEMES = new Set(["http", "https", "mailto"]);

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

export function applyAnswerRules(md: InstanceType<typeof MarkdownIt>): void {
  // markdown-it asks this of every link, autolink and linkified URL; a refused one stays text.
  md.validateLink = (url) => {
    const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    return scheme === undefined || ALLOWED_SCHEMES.has(scheme.toLowerCase());
  };

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
}
