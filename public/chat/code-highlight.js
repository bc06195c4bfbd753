// Highlighting of a streaming answer's code blocks, in idle time: a closed fence is first
// rendered plain (markdown.js, deferred), and its <code> gets highlight.js's classed spans
// here, in an idle callback, one block after another. highlight.js and the sanitizing of
// its spans were the costliest part of a render with a finished code block (about twice a
// plain one at 4x CPU throttling), on the main path of the stream. The result is the same
// DOM a render that highlights at once makes (the same highlight() and DOMPurify rules), so
// a finished answer equals a fresh render of its stored text; stream-render.js leaves the
// streaming state only once this queue is empty.
import { codeNodes, highlight } from "./markdown-setup.js";

/** An idle callback waits at most this long for idle time: a busy page still gets its colours. */
const IDLE_TIMEOUT_MS = 300;

/** @type {{ code: Element, text: string, lang: string }[]} */
const queue = [];
/** @type {(() => void)[]} */
let waiting = [];
let asked = false;

const idle = (/** @type {(deadline: { timeRemaining(): number, didTimeout: boolean }) => void} */ run) =>
  typeof requestIdleCallback === "function"
    ? requestIdleCallback(run, { timeout: IDLE_TIMEOUT_MS })
    : setTimeout(() => run({ timeRemaining: () => 0, didTimeout: true }), 0);

function ask() {
  if (asked) return;
  asked = true;
  idle(run);
}

/** One block per idle callback (each its own task); more only while they are quick and idle time lasts. */
const QUICK_MS = 8;

/** Highlights queued blocks: at least one each call, then more while cheap and idle. */
function run(/** @type {{ timeRemaining(): number }} */ deadline) {
  asked = false;
  const started = performance.now();
  do {
    const job = queue.shift();
    if (!job) break;
    // A block replaced meanwhile (its answer re-rendered, or gone): nothing to do.
    if (!job.code.isConnected) continue;
    const html = highlight(job.text, job.lang);
    if (html) job.code.replaceChildren(...codeNodes(html));
  } while (performance.now() - started < QUICK_MS && deadline.timeRemaining() > QUICK_MS);
  if (queue.length > 0) return ask();
  const done = waiting;
  waiting = [];
  for (const resolve of done) resolve();
}

/** Highlights `code` (a <code> holding `text` plain) in idle time. */
export function highlightLater(/** @type {Element} */ code, /** @type {string} */ text, /** @type {string} */ lang) {
  queue.push({ code, text, lang });
  ask();
}

/** Resolves once every queued block is highlighted. */
export function highlighted() {
  if (queue.length === 0) return Promise.resolve();
  return new Promise((resolve) => waiting.push(() => resolve(undefined)));
}
