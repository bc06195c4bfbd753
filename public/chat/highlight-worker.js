// highlight.js off the main thread (issue 37: one Python block took 100–190 ms of the main
// thread at 4x CPU throttling, and highlight.js cannot be interrupted). code-highlight.js
// sends `{ id, lang, code }` for each finished code block of a streaming answer; this
// answers `{ id, html }`: highlight.js's classed spans, or "" for a language it does not
// know (the block stays plain). The page sanitizes that HTML (DOMPurify, markdown-setup.js's
// rules) before it is shown: nothing from here reaches the DOM unchecked. The same
// vendored highlight.js as the page's, so a block comes out as the page itself would make it.
// Built into its own content-hashed file (scripts/build-page.mjs).
import hljs from "../vendor/highlight.js/highlight.min.js";

/** What the page sends; anything else (not ours) is answered with nothing highlighted. */
function job(/** @type {unknown} */ data) {
  const { id, lang, code } = /** @type {{ id?: unknown, lang?: unknown, code?: unknown }} */ (data ?? {});
  if (typeof id !== "number" || typeof lang !== "string" || typeof code !== "string") return null;
  return { id, lang, code };
}

self.addEventListener("message", (event) => {
  const request = job(event.data);
  if (!request) return;
  let html = "";
  const name = request.lang.trim();
  if (name && hljs.getLanguage(name)) {
    try {
      html = hljs.highlight(request.code, { language: name, ignoreIllegals: true }).value;
    } catch {
      html = "";
    }
  }
  self.postMessage({ id: request.id, html });
});
