// The renderer's warm-up (issue 37): its code for each kind of block compiled in idle time,
// before the first answer that needs it. The streaming itself is stream-render.js.
import { markdownLoaded, renderMarkdownInto } from "./markdown-load.js";

/**
 * Once, in idle time after the chat's socket first opens: every kind of block rendered into
 * a detached element, so the first answer with a table or a code block does not pay for
 * compiling the renderer's code for them (the first such render cost ~300 ms at 4x in
 * bench:page-stream, later ones a tenth of that). Nothing is shown; the element is dropped.
 * Not at load, and not in one go: it was one task of 90–320 ms on a loaded machine, and run
 * while the page started it held back the socket's open event, and so the page's first
 * interactive moment (bench:page --timeline).
 */
const WARM = [
  "### A\n\nText **b** *i* `c` [l](https://example.com) 2*3*4\n",
  "- a\n  - b\n1. c\n",
  "> q\n",
  "| a | b |\n|:--|--:|\n| 1 | 2 |\n",
  "```python\nx = 1\n```\n",
  "---\n",
];
/** A piece of the warm-up runs only in an idle period with this much left (of at most 50 ms): nothing else is waiting. */
const WARM_IDLE_MS = 30;
let warmed = false;

/**
 * Renders WARM once, a kind of block per idle callback (each a short task of its own, so an
 * event that comes meanwhile waits for one piece at most), each only when the page is truly
 * idle (connection.js calls this when the socket opens).
 */
export function warmUp() {
  if (warmed || typeof requestIdleCallback !== "function") return;
  warmed = true;
  const pieces = [...WARM];
  const next = (/** @type {IdleDeadline} */ deadline) => {
    const piece = deadline.timeRemaining() >= WARM_IDLE_MS ? pieces.shift() : undefined;
    if (piece) renderMarkdownInto(document.createElement("div"), piece);
    if (pieces.length > 0) requestIdleCallback(next);
  };
  // The renderer is a chunk (markdown-load.js): warmed once it is there.
  void markdownLoaded.then(() => requestIdleCallback(next));
}
