// The vendored highlight.js (scripts/vendor-page-libs.mjs: @highlightjs/cdn-assets' ES build
// with the common languages). Only what markdown.js calls is typed here.
declare const hljs: {
  getLanguage(name: string): object | undefined;
  highlight(code: string, options: { language: string; ignoreIllegals?: boolean }): { value: string };
};
export default hljs;
