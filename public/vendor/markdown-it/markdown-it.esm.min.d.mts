// The vendored markdown-it (scripts/vendor-page-libs.mjs) ships no types and @types/markdown-it
// is not installed: the page uses it through markdown.js only, typed loosely here.
// biome-ignore lint/suspicious/noExplicitAny: an untyped vendored library.
declare const MarkdownIt: any;
export default MarkdownIt;
