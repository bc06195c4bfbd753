// highlight.js off the main thread (issue 37: one Python block took 100–190 ms of the main
// thread at 4x CPU throttling, and highlight.js cannot be interrupted). code-highlight.js
// sends `{ id, lang, code }` for each finished code block of a streaming answer; this
// answers `{ id, tokens }`: highlight.js's classed spans as a token tree (highlight-tokens.js),
// or null for a language it does not know (the block stays plain). The page builds nodes
// from the tokens with DOM calls (text stays text), so no HTML from here is parsed there,
// and there is nothing to sanitize (that took 34-35 ms a block at 4x CPU). The same
// vendored highlight.js as the page's, so a block comes out as the page itself would make it.
// Built into its own content-hashed file (scripts/build-page.mjs).
import hljs from "../vendor/highlight.js/highlight.min.js";
import { tokensOf } from "./highlight-tokens.js";

/** What the page sends; anything else (not ours) is answered with nothing highlighted. */
function job(/** @type {unknown} */ data) {
  const { id, lang, code } = /** @type {{ id?: unknown, lang?: unknown, code?: unknown }} */ (data ?? {});
  if (typeof id !== "number" || typeof lang !== "string" || typeof code !== "string") return null;
  return { id, lang, code };
}

self.addEventListener("message", (event) => {
  const request = job(event.data);
  if (!request) return;
  /** @type {import("./highlight-tokens.js").Token[] | null} */
  let tokens = null;
  const name = request.lang.trim();
  if (name && hljs.getLanguage(name)) {
    try {
      tokens = tokensOf(hljs.highlight(request.code, { language: name, ignoreIllegals: true }).value);
    } catch {
      tokens = null;
    }
  }
  self.postMessage({ id: request.id, tokens });
});
