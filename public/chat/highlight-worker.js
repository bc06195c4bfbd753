// highlight.js off the main thread (issue 37: one Python block took 100–190 ms of the main
// thread at 4x CPU throttling, and highlight.js cannot be interrupted). code-highlight.js
// sends `{ id, lang, code }` for each finished code block of an answer; this answers
// `{ id, ranges }`: the block's colours as [start, end, group] triples over its text
// (code-colours.js), empty for a language highlight.js does not know (the block stays
// plain). Numbers only: nothing from here becomes markup, and the page checks each range
// against its block before painting it. The same vendored highlight.js as the page's idle
// path, so a block comes out as the page itself would colour it.
// Built into its own content-hashed file (scripts/build-page.mjs).
import hljs from "../vendor/highlight.js/highlight.min.js";
import { colourRanges } from "./code-colours.js";

/** What the page sends; anything else (not ours) is answered with nothing highlighted. */
function job(/** @type {unknown} */ data) {
  const { id, lang, code } = /** @type {{ id?: unknown, lang?: unknown, code?: unknown }} */ (data ?? {});
  if (typeof id !== "number" || typeof lang !== "string" || typeof code !== "string") return null;
  return { id, lang, code };
}

self.addEventListener("message", (event) => {
  const request = job(event.data);
  if (!request) return;
  /** @type {number[]} */
  let ranges = [];
  const name = request.lang.trim();
  if (name && hljs.getLanguage(name)) {
    try {
      ranges = colourRanges(hljs.highlight(request.code, { language: name, ignoreIllegals: true }).value);
    } catch {
      // highlight.js gave up on this text: the block stays plain.
    }
  }
  self.postMessage({ id: request.id, ranges });
});
