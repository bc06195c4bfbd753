// An answer on a shared page as the chat shows it: Markdown (CommonMark, tables,
// strikethrough) rendered on the Worker by markdown-it, with the settings of the page's
// own renderer (the rules both use are markdown-rules.ts) minus code highlighting, since the
// shared page runs no script:
// - raw HTML is off: `<script>` or `<img onerror=…>` in an answer is shown as text;
// - links: http(s), mailto and relative ones only; any other scheme reads as the text written;
// - images are shown as links to them (the page's CSP loads no image from elsewhere);
// - `2*3*4`: a `*` between two digits is a times sign, not emphasis;
// - headings start at h3 (the page's own h1 stays above them).
import MarkdownIt from "markdown-it";
import { applyAnswerRules } from "./markdown-rules";

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });

applyAnswerRules(md);

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
