// An answer as it streams in: rendered at most once a frame, and each frame renders only
// as many new characters as fit in its time. The text can arrive much faster than the
// page draws (a model or a reconnect sends kilobytes at once); a frame then renders the
// next slice and asks for another, so no frame's work grows with the burst, and the page
// stays responsive while it catches up (markdown.js re-parses only the open tail, so a
// frame's cost does not grow with the answer either). The slice adapts to the device: a
// frame that took longer than FRAME_MS makes the next slices smaller, a quick one larger,
// so a slow phone (or a CPU throttled 4x) renders smaller slices, more often. When the
// answer is final, the element leaves the streaming state once everything is shown.
//
// Two more rules (issue 37, bench/page-stream.ts):
// - The first text is rendered at once, in the task its frame arrived in: it paints in
//   the next frame instead of waiting for a frame callback first.
// - Renders are spaced: the next starts at least GAP_FACTOR times the last one's cost
//   after it and not sooner than MIN_GAP_MS; while more than a slice waits (catching up),
//   one cost after it. Each render pays a fixed price (parse and sanitize the open block,
//   style, layout and paint of the frame) whatever it adds, so rendering every frame of a
//   paced stream spent the main thread on that price: at 4x CPU throttling it was busy all
//   the time and its frames grew into long tasks. For the same reason a slice is at least
//   MIN_CHARS: slices of 256 characters, which a slow device learnt, cost about what 1,024
//   do, and an answer then took four times as many renders and fell behind its stream.
import { renderMarkdownInto } from "./markdown.js";

/** What a frame's render (parse, sanitize, the layout it forces) should take: well under a 16 ms frame, so input and paint still fit. */
export const FRAME_MS = 10;
/** Bounds of a frame's slice: never so small that a burst takes ages to catch up, never more than a few KB in one go. */
export const MIN_CHARS = 1024;
export const MAX_CHARS = 4096;

/** At least this long between two renders of an answer (about three frames: the text still moves smoothly). */
export const MIN_GAP_MS = 48;
/** The gap is at least this many times what the last render cost: rendering takes at most a third of the main thread. */
export const GAP_FACTOR = 2;

/** Characters a frame renders, learnt from the frames before (shared by every answer: it is the device's speed). */
let sliceChars = 1024;

/** Learns from one frame: `ms` to render `chars` new characters. */
function learn(/** @type {number} */ chars, /** @type {number} */ ms) {
  // Only full slices teach: a frame that rendered the last few characters says little.
  if (chars < sliceChars) return;
  if (ms > FRAME_MS) sliceChars = Math.max(MIN_CHARS, Math.floor(sliceChars * Math.max(0.1, FRAME_MS / ms)));
  else if (ms < FRAME_MS / 2) sliceChars = Math.min(MAX_CHARS, Math.ceil(sliceChars * 1.25));
}

/**
 * @param {HTMLElement} el the message (`.msg.assistant.streaming`)
 * @param {HTMLElement} body where the Markdown goes
 * @param {() => void} rendered called after each frame's render (to keep the end in view)
 */
export function createStream(el, body, rendered) {
  let text = "";
  let shown = "";
  /** @type {{ partial: boolean } | null} */
  let final = null;
  let scheduled = false;
  /** The gap's timer while a render waits for it (finish() skips the wait). */
  let gapTimer = 0;
  /** When the last render ended, and what it cost (performance.now() ms). */
  let lastEnd = Number.NEGATIVE_INFINITY;
  let lastCost = 0;

  function settled() {
    if (!final) return;
    el.classList.toggle("partial", final.partial);
    el.classList.remove("streaming");
  }

  function frame() {
    scheduled = false;
    if (!el.isConnected) return;
    // A continuation grows by at most one slice; anything else (a stored version that differs) is rendered whole.
    const continues = text.startsWith(shown);
    const next = continues && text.length - shown.length > sliceChars ? text.slice(0, shown.length + sliceChars) : text;
    if (next !== shown) {
      const started = performance.now();
      renderMarkdownInto(body, next);
      // The layout this frame needs anyway, done here so that the slice's cost counts it.
      void body.offsetHeight;
      lastEnd = performance.now();
      lastCost = lastEnd - started;
      // For bench/page-stream.ts --why (a PerformanceObserver) and profiles: what each render did
      // and cost. Only the newest stays in the timeline, so a long session does not pile them up.
      performance.clearMeasures("answer render");
      performance.measure("answer render", { start: started, end: lastEnd, detail: { chars: next.length - shown.length, continues, total: next.length } });
      if (continues) learn(next.length - shown.length, lastCost);
      shown = next;
    }
    if (shown !== text) schedule();
    else settled();
    rendered();
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    // Catching up (more than a slice waiting), each render is a full slice: the gap is its cost, half the main thread.
    const behind = text.length - shown.length > sliceChars;
    const wait = lastEnd + (behind ? lastCost : Math.max(MIN_GAP_MS, GAP_FACTOR * lastCost)) - performance.now();
    // The frame after the gap: a timer that ends in a frame callback (rendering stays in step with painting).
    if (wait > 0)
      gapTimer = setTimeout(() => {
        gapTimer = 0;
        requestAnimationFrame(frame);
      }, wait);
    else requestAnimationFrame(frame);
  }

  return {
    /** The whole text so far. @param {string} whole */
    push(whole) {
      text = whole;
      // The first words: shown now, painted in the next frame.
      if (shown === "" && !scheduled && el.isConnected) frame();
      else schedule();
    },
    /** The text is final (the stored entry, or the turn ended). @param {string} whole @param {boolean} partial cut short */
    finish(whole, partial) {
      text = whole;
      final = { partial };
      // Shown already (the usual case): settled now, not a frame later.
      if (shown === text) return settled();
      // The answer is whole: its last words go in the next frame, not after the gap (it spaces
      // renders of a stream that goes on); a backlog of more than a slice still goes slice by slice.
      if (gapTimer && text.length - shown.length <= sliceChars) {
        clearTimeout(gapTimer);
        gapTimer = 0;
        requestAnimationFrame(frame);
        return;
      }
      schedule();
    },
  };
}
