// Where the page's streaming work runs between frames (stream-render.js):
// the next task, the task after a frame, and a frame's own callback with what it cost.

/** The next task (input and a frame, if one is due, may run first): scheduler.yield where the browser has it. */
export const nextTask = () => {
  const scheduler = /** @type {{ scheduler?: { yield?: () => Promise<void> } }} */ (/** @type {unknown} */ (globalThis)).scheduler;
  if (scheduler?.yield) return scheduler.yield();
  // A message, not a timer: a nested setTimeout is clamped to 4 ms.
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve(undefined);
    channel.port2.postMessage(null);
  });
};

/** Callbacks waiting for the task after the frame, in order (one message each). @type {(() => void)[]} */
const afterFrame = [];
/** @type {MessageChannel | null} */
let afterChannel = null;

/**
 * The task after the frame: whatever else was queued may run first, so a cost seen is never
 * too low. One channel for all: a MessageChannel made per frame cost about 0.1-0.3 ms of
 * every streaming frame (a Chromium page, 200 made vs one reused; issue 37).
 */
const afterTask = (/** @type {() => void} */ run) => {
  if (!afterChannel) {
    afterChannel = new MessageChannel();
    afterChannel.port1.onmessage = () => afterFrame.shift()?.();
  }
  afterFrame.push(run);
  afterChannel.port2.postMessage(null);
};

/**
 * Runs `write` in the next frame's callback, then calls `cost` with what the frame cost from
 * there: the callback, and the style, layout and paint the browser does after it in the same
 * task (a message posted from the callback runs after that task).
 * @param {() => void} write @param {(ms: number) => void} cost
 */
export function inFrame(write, cost) {
  requestAnimationFrame(() => {
    const started = performance.now();
    write();
    afterTask(() => cost(performance.now() - started));
  });
}
