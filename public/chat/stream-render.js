// An answer as it streams in. Two kinds of work, kept apart (issue 37, bench/page-stream.ts):
//
// - Each frame, the text that arrived is shown at once as plain text (stream-plain.js:
//   characters appended to one text node, no parse, no sanitizing). That is what keeps up
//   with the stream, however fast it comes.
// - Now and then a render turns the text into Markdown (markdown.js: only the open tail is
//   parsed again, settled blocks are never touched). A render pays a mostly fixed price
//   (parse and sanitize the open block, then the style, layout and paint it causes), and
//   rendering every frame of a paced stream kept a 4x-throttled main thread busy all the
//   time, in long tasks. So renders are spaced: the next pass starts at least MIN_GAP_MS
//   and GAP_FACTOR times the last pass's cost after it. The text is final: one pass now.
// - A pass renders its text in slices, each in a task of its own (scheduler.yield, else a
//   MessageChannel message): input and frames run between them, and no task holds more
//   than one slice's work. The slice adapts to the device: each render's cost per
//   character parsed is learnt, and a slice is as many characters as SLICE_MS buys at that
//   rate, so a 4x slower CPU renders slices a quarter the size. (It used to halve or grow
//   the slice by steps, above 512 characters, and learn only from full slices: at 4x CPU
//   the slices stayed at 35-52 ms of script each, bench:page-stream --why.)
// - A frame of plain text costs the browser its style, layout and paint (about 6 ms here,
//   35-45 ms at 4x CPU, measured from the frame's callback to the task after the frame):
//   plain text is shown at most every PLAIN_FACTOR times that, so on a slow device the
//   frames of a stream leave the main thread to everything else.
//
// The first words are shown (plainly) in the task their frame arrived in, so they paint in
// the next frame. When the answer is final, its last pass leaves no plain text, and the
// element leaves the streaming state: the same DOM as a fresh render of the stored text.
import { highlighted, renderMarkdownInto } from "./markdown-load.js";
import { inFrame, nextTask } from "./frame-tasks.js";
import { createPlain } from "./stream-plain.js";

/** What one slice's render (parse, sanitize, DOM) should take: the frame's layout and paint come on top. */
export const SLICE_MS = 16;
/** Bounds of a slice: a burst is not caught up in crumbs (each render has a fixed price), and no slice is more than a few KB. */
export const MIN_CHARS = 128;
export const MAX_CHARS = 4096;
/** Only a render that parsed at least this much teaches the rate: a small one is mostly its fixed price. */
export const LEARN_CHARS = 256;
/** At least this long between two passes of an answer's Markdown render: the plain text keeps up meanwhile. */
export const MIN_GAP_MS = 250;
/** The gap is at least this many times what the last pass cost: rendering takes at most a third of the main thread. */
export const GAP_FACTOR = 2;
/** No text for this long: the stream paused (a slow model, a tool call), so its last block is rendered as it is. */
export const QUIET_MS = 150;
/** A block still open after this many characters (a long code block) is rendered up to its last complete line. */
export const LONG_BLOCK = 2048;
/** Plain text is shown at most this often (a frame that changes the answer pays its layout and paint). */
export const PLAIN_GAP_MS = 50;
/** Plain-text frames are at least this many times their own cost apart (so at most a third of the main thread). */
export const PLAIN_FACTOR = 3;
/** However costly the frames, plain text is shown at least this often. */
export const PLAIN_GAP_MAX_MS = 200;
/** At most this much plain text at once (a reconnect's burst is rendered a slice at a time, not laid out raw). */
export const PLAIN_MAX = 8192;

/** Characters a slice renders, learnt from the slices before (shared by every answer: it is the device's speed). */
let sliceChars = 1024;
/** What a render costs per character it parses (ms, a running mean; 0 until a render taught it). */
let msPerChar = 0;

/** What a frame of plain text costs the browser (ms, a running mean; shared: it is the device's speed). */
let plainFrameMs = 0;

/** One more plain-text frame's cost: the mean moves a quarter of the way (one slow frame is not a slow device). */
function learnFrame(/** @type {number} */ ms) {
  plainFrameMs = plainFrameMs === 0 ? ms : plainFrameMs + (ms - plainFrameMs) / 4;
}

/**
 * Learns from one slice: `ms` to render, having parsed `parsed` characters (its new text
 * and the open block before it, parsed again). The rate is per character parsed, not per
 * new one, so a slice that continues a long block does not look dearer than it is. The
 * mean moves half way: one slow slice (a collection, a busy core) is not a slow device.
 */
function learn(/** @type {number} */ parsed, /** @type {number} */ ms) {
  if (parsed < LEARN_CHARS) return;
  const rate = ms / parsed;
  msPerChar = msPerChar === 0 ? rate : msPerChar + (rate - msPerChar) / 2;
  sliceChars = Math.min(MAX_CHARS, Math.max(MIN_CHARS, Math.floor(SLICE_MS / msPerChar)));
}

/**
 * How far a pass renders: to the end of the last complete block (the last blank line), so a
 * block is rendered once it is whole instead of again at every pass while it grows; a block
 * that goes on and on (a long code block) up to its last complete line; the whole text when
 * it is final or the stream has paused.
 */
function passEnd(/** @type {string} */ text, /** @type {number} */ from, /** @type {boolean} */ all) {
  if (all) return text.length;
  const blank = text.lastIndexOf("\n\n");
  if (blank >= from) return blank + 2;
  if (text.length - from < LONG_BLOCK) return from;
  return Math.max(from, text.lastIndexOf("\n") + 1);
}

/**
 * Where a slice from `from` ends (at most `end`): a block end in the second half of
 * sliceChars, else a line end (a long code block or table is rendered over several slices;
 * its plain, unhighlighted render again is cheap), else sliceChars in.
 */
function sliceEnd(/** @type {string} */ text, /** @type {number} */ from, /** @type {number} */ end) {
  if (end - from <= sliceChars) return end;
  const limit = from + sliceChars;
  const block = text.lastIndexOf("\n\n", limit);
  if (block >= from + sliceChars / 2) return block + 2;
  const line = text.lastIndexOf("\n", limit);
  return line >= from ? line + 1 : limit;
}

/**
 * @param {HTMLElement} el the message (`.msg.assistant.streaming`)
 * @param {HTMLElement} body where the Markdown goes
 * @param {() => void} rendered called after each frame that changed the answer (to keep the end in view)
 */
export function createStream(el, body, rendered) {
  let text = "";
  /** The text rendered as Markdown; the rest of `text` is shown plainly. */
  let shown = "";
  const plain = createPlain(body);
  /** @type {{ partial: boolean } | null} */
  let final = null;
  let frameAsked = false;
  /** When a frame last showed new text. */
  let lastFrame = Number.NEGATIVE_INFINITY;
  /** A pass is running (its slices own the DOM until it ends), or waits for its gap (the timer). */
  let passing = false;
  let passTimer = 0;
  /** When the last pass ended, and what its slices cost together (performance.now() ms). */
  let lastEnd = Number.NEGATIVE_INFINITY;
  let lastCost = 0;
  /** When text last arrived. */
  let lastPush = 0;

  const showPlain = () => plain.show(shown, text.startsWith(shown) ? text.slice(shown.length, shown.length + PLAIN_MAX) : "");

  /** The text is final and rendered: the answer leaves the streaming state once its code is highlighted too. */
  function settled() {
    if (!final || shown !== text) return;
    void highlighted().then(() => {
      if (!final || shown !== text) return;
      el.classList.toggle("partial", final.partial);
      el.classList.remove("streaming");
    });
  }

  /** A frame: the new text shown plainly, the end kept in view. Returns whether it showed plain text only. */
  function frame() {
    frameAsked = false;
    if (!el.isConnected) return false;
    lastFrame = performance.now();
    const plainOnly = !passing;
    if (plainOnly) showPlain();
    rendered();
    return plainOnly;
  }

  /** The next frame, or (plain text only) the first one a plain frame's gap after the last (PLAIN_GAP_MS, more on a slow device). */
  function askFrame(/** @type {boolean} */ now = false) {
    if (frameAsked) return;
    frameAsked = true;
    const gap = Math.min(PLAIN_GAP_MAX_MS, Math.max(PLAIN_GAP_MS, PLAIN_FACTOR * plainFrameMs));
    const wait = now ? 0 : lastFrame + gap - performance.now();
    /** Whether this frame showed plain text alone: only such a frame teaches what plain text costs. */
    let plainOnly = false;
    const show = () =>
      inFrame(
        () => {
          plainOnly = frame();
        },
        (ms) => {
          if (plainOnly) learnFrame(ms);
        },
      );
    if (wait > 0) setTimeout(show, wait);
    else show();
  }

  /** One slice of Markdown, up to `end` of a continuation (else the whole text). Returns its cost and the characters it parsed. */
  function slice(/** @type {number} */ end) {
    // A continuation grows by a slice; anything else (a stored version that differs) is rendered whole.
    const continues = text.startsWith(shown);
    const next = continues ? text.slice(0, sliceEnd(text, shown.length, end)) : text;
    plain.clear();
    const started = performance.now();
    const parsed = renderMarkdownInto(body, next);
    const ended = performance.now();
    // For bench/page-stream.ts --why and stream-render.test.ts (PerformanceObservers) and profiles:
    // what each render did and cost. Only the newest stays in the timeline.
    performance.clearMeasures("answer render");
    performance.measure("answer render", { start: started, end: ended, detail: { chars: next.length - shown.length, parsed, continues, total: next.length } });
    shown = next;
    showPlain();
    return { ms: ended - started, parsed };
  }

  /** Renders what is complete now, a slice per task; then waits for the gap. */
  async function pass() {
    passTimer = 0;
    const continues = text.startsWith(shown);
    const quiet = performance.now() - lastPush >= QUIET_MS;
    const end = continues ? passEnd(text, shown.length, Boolean(final) || quiet) : text.length;
    if (continues && end <= shown.length) {
      settled();
      // Nothing whole yet: look again once the stream may have paused.
      if (shown !== text) passTimer = setTimeout(pass, Math.max(QUIET_MS / 2, lastPush + QUIET_MS - performance.now()));
      return;
    }
    passing = true;
    let cost = 0;
    try {
      while (el.isConnected) {
        // A text made final meanwhile is rendered to its end.
        const { ms, parsed } = slice(final ? text.length : end);
        cost += ms;
        learn(parsed, ms);
        askFrame(true);
        if (shown === text || (!final && shown.length >= end)) break;
        await nextTask();
      }
    } finally {
      passing = false;
    }
    lastEnd = performance.now();
    lastCost = cost;
    settled();
    if (shown !== text) askPass();
  }

  function askPass() {
    if (passing || passTimer) return;
    const wait = final ? 0 : lastEnd + Math.max(MIN_GAP_MS, GAP_FACTOR * lastCost) - performance.now();
    passTimer = setTimeout(pass, Math.max(0, wait));
  }

  return {
    /** The whole text so far. @param {string} whole */
    push(whole) {
      text = whole;
      lastPush = performance.now();
      // The first words: shown now, painted in the next frame; their first render waits a gap
      // (they paint first, and it renders more than a few words).
      if (shown === "" && el.isConnected && !passing && !passTimer) {
        showPlain();
        if (lastEnd < 0) lastEnd = performance.now();
      }
      askFrame();
      askPass();
    },
    /** The text is final (the stored entry, or the turn ended). @param {string} whole @param {boolean} partial cut short */
    finish(whole, partial) {
      text = whole;
      final = { partial };
      // Rendered already: settled now, not a frame later.
      if (shown === text) return settled();
      // The answer is whole: its last words are rendered now, not after the gap.
      if (passTimer) {
        clearTimeout(passTimer);
        passTimer = 0;
      }
      askPass();
    },
  };
}
