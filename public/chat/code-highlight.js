// Highlighting of answers' code blocks (streaming or from the history), off the main path:
// a closed fence is first rendered plain (markdown.js), and its <code> gets coloured spans
// here, later. highlight.js runs in a Web Worker (highlight-worker.js): it is synchronous,
// and one Python block took 100–190 ms of a 4x-throttled main thread, in idle time or not.
// The worker answers with numbers only, the block's colours as ranges of its text
// (code-colours.js): the page checks them against the block and builds the spans itself,
// text nodes and `<span class="hl-GROUP">`, so there is no markup to sanitize (DOMPurify
// on highlight.js's HTML took ~95 ms of a 4x-throttled main thread for a 1.8 KB block,
// cut into pieces across tasks) and one span per coloured run: highlight.js's spans that
// colour nothing, and nesting, are gone (fewer elements to style and lay out at the swap).
// Where no worker can be made (construction throws, its script fails to load), highlight.js
// is loaded into the page then (a chunk of its own: the page's bundle does not carry its
// 120 KB, issue 37's cold load) and blocks are highlighted in idle callbacks, one after another.
// Both paths make the same spans, so a finished answer equals a fresh render of its stored
// text; stream-render.js leaves the streaming state only once nothing is left to highlight.
// Each block shown highlighted is measured (`code highlighted`: the swap's cost,
// detail.where "worker" or "idle") for tests and bench/page-stream.ts.
import { colourRanges, GROUPS } from "./code-colours.js";
import { inFrame } from "./frame-tasks.js";

/** An idle callback waits at most this long for idle time: a busy page still gets its colours. */
const IDLE_TIMEOUT_MS = 300;

/** @typedef {{ code: Element, text: string, lang: string }} Job */
/** Blocks for the idle path (no worker). @type {Job[]} */
const queue = [];
/** Blocks sent to the worker, by id. @type {Map<number, Job>} */
const sent = new Map();
let lastId = 0;
/** The worker: undefined until the first block, null once it could not be had. @type {Worker | null | undefined} */
let worker;
/** @type {(() => void)[]} */
let waiting = [];
let asked = false;

/**
 * The worker's script: its content-hashed file in the built page (scripts/build-page.mjs
 * defines HIGHLIGHT_WORKER), else the module beside this one.
 */
const workerUrl = () => (typeof HIGHLIGHT_WORKER === "string" ? HIGHLIGHT_WORKER : new URL("./highlight-worker.js", import.meta.url).href);

/** The worker, made at the first block (not at load: a page that shows no code never fetches it). */
function theWorker() {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(workerUrl(), { type: "module", name: "highlight" });
  } catch {
    worker = null;
    return null;
  }
  worker.addEventListener("message", received);
  // Its script did not load or failed: what it was given is highlighted here.
  worker.addEventListener("error", fallBack);
  worker.addEventListener("messageerror", fallBack);
  return worker;
}

function fallBack() {
  worker?.terminate();
  worker = null;
  queue.push(...sent.values());
  sent.clear();
  if (queue.length > 0) ask();
  else if (nothingLeft()) done();
}

/**
 * The block's text as text nodes and coloured spans, from `ranges` (code-colours.js triples,
 * in order); null when a range does not fit the text (nothing is shown from it).
 */
function colouredNodes(/** @type {string} */ text, /** @type {unknown[]} */ ranges) {
  /** @type {Node[]} */
  const nodes = [];
  let at = 0;
  for (let i = 0; i + 2 < ranges.length; i += 3) {
    const [start, end, group] = ranges.slice(i, i + 3);
    const name = typeof group === "number" ? GROUPS[group] : undefined;
    if (!name || !Number.isInteger(start) || !Number.isInteger(end)) return null;
    const from = /** @type {number} */ (start);
    const to = /** @type {number} */ (end);
    if (from < at || to > text.length || from >= to) return null;
    if (from > at) nodes.push(document.createTextNode(text.slice(at, from)));
    const span = document.createElement("span");
    span.className = `hl-${name}`;
    span.textContent = text.slice(from, to);
    nodes.push(span);
    at = to;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

/**
 * A block of more nodes than this is coloured over several frames, this many nodes a frame:
 * a frame styles and lays out what it was given, and a long block's spans at once (about 160
 * elements, 450 layout objects) made the costliest frames of a streamed answer (15 ms at 1x
 * CPU, over 50 ms at 4x; bench:paint --bar 12.5).
 */
const PIECE = 64;
/** On a block while it is coloured over several frames (no rule uses it: a test or a bench can wait for it to go). */
const COLOURING = "hl-colouring";
/** Blocks being coloured over several frames: `highlighted()` waits for them too. */
let colouring = 0;
/** Nothing given is left: queued, at the worker, or still being coloured. */
const nothingLeft = () => queue.length === 0 && sent.size === 0 && colouring === 0;

/** The measure a block's colouring leaves (its script's cost, all pieces together). */
function measured(/** @type {Job} */ job, /** @type {"worker" | "idle"} */ where, /** @type {number} */ ms) {
  const end = performance.now();
  performance.measure("code highlighted", { start: end - ms, end, detail: { where, lang: job.lang, chars: job.text.length } });
  // Only the newest stays in the timeline (PerformanceObservers see each).
  performance.clearMeasures("code highlighted");
}

/** Shows the block's text coloured by `ranges`, unless the block was replaced or changed meanwhile. */
function show(/** @type {Job} */ job, /** @type {unknown[]} */ ranges, /** @type {"worker" | "idle"} */ where) {
  if (ranges.length === 0 || !job.code.isConnected || job.code.textContent !== job.text) return;
  const started = performance.now();
  const nodes = colouredNodes(job.text, ranges);
  if (!nodes) return;
  const plain = job.code.firstChild;
  // A hidden page has no frames to spread it over (nor anyone to see it).
  if (nodes.length <= PIECE || document.hidden || !(plain instanceof Text) || plain !== job.code.lastChild) {
    job.code.replaceChildren(...nodes);
    measured(job, where, performance.now() - started);
    return;
  }
  colouring++;
  job.code.classList.add(COLOURING);
  /** The script's cost: the nodes built, then each piece put in. */
  let spent = performance.now() - started;
  let rest = plain;
  let at = 0;
  // Each piece takes the start of the plain text left (split off, so the text never changes) and
  // puts its coloured nodes there; the next waits for the frame that shows this one.
  const piece = () => {
    const began = performance.now();
    const whole = document.hidden;
    if (job.code.isConnected && rest.parentNode === job.code) {
      const part = whole ? nodes.slice(at) : nodes.slice(at, at + PIECE);
      at += part.length;
      const after = at < nodes.length ? rest.splitText(part.reduce((sum, node) => sum + (node.textContent ?? "").length, 0)) : null;
      rest.replaceWith(...part);
      spent += performance.now() - began;
      if (after) {
        rest = after;
        inFrame(
          () => {},
          () => piece(),
        );
        return;
      }
      job.code.classList.remove(COLOURING);
      measured(job, where, spent);
    }
    // Done, or the block was replaced meanwhile (its answer rendered again): nothing more to do.
    colouring--;
    if (nothingLeft()) done();
  };
  piece();
}

function received(/** @type {MessageEvent} */ event) {
  const { id, ranges } = /** @type {{ id?: unknown, ranges?: unknown }} */ (event.data ?? {});
  if (typeof id !== "number") return;
  const job = sent.get(id);
  if (!job) return;
  sent.delete(id);
  show(job, Array.isArray(ranges) ? ranges : [], "worker");
  if (nothingLeft()) done();
}

/** Everything given is highlighted: whoever waits for that goes on. */
function done() {
  const resolved = waiting;
  waiting = [];
  for (const resolve of resolved) resolve();
}

const idle = (/** @type {(deadline: { timeRemaining(): number, didTimeout: boolean }) => void} */ run) =>
  typeof requestIdleCallback === "function"
    ? requestIdleCallback(run, { timeout: IDLE_TIMEOUT_MS })
    : setTimeout(() => run({ timeRemaining: () => 0, didTimeout: true }), 0);

/**
 * highlight.js on the page, for the idle path only: loaded the first time a block needs it.
 * @typedef {{ highlight(code: string, options: { language: string, ignoreIllegals: boolean }): { value: string }, getLanguage(name: string): unknown }} Hljs
 * @type {Promise<Hljs> | undefined}
 */
let hljs;
const loadHljs = () => (hljs ??= import("../vendor/highlight.js/highlight.min.js").then((module) => module.default));

/** A block's colours (code-colours.js), or none for a language highlight.js does not know (the block stays plain). */
function highlightWith(/** @type {Hljs} */ library, /** @type {string} */ code, /** @type {string} */ lang) {
  const name = lang.trim();
  if (!name || !library.getLanguage(name)) return [];
  try {
    return colourRanges(library.highlight(code, { language: name, ignoreIllegals: true }).value);
  } catch {
    return [];
  }
}

function ask() {
  if (asked) return;
  asked = true;
  // highlight.js is loaded first (once), so the idle callbacks only highlight.
  loadHljs().then(
    () => idle(run),
    () => {
      // Not even the page's own chunk loads: the blocks stay plain, and nobody waits for them.
      asked = false;
      queue.length = 0;
      if (nothingLeft()) done();
    },
  );
}

/** One block per idle callback (each its own task); more only while they are quick and idle time lasts. */
const QUICK_MS = 8;

/** Highlights queued blocks here (no worker): at least one each call, then more while cheap and idle. */
async function run(/** @type {{ timeRemaining(): number }} */ deadline) {
  const started = performance.now();
  const library = await loadHljs();
  do {
    const job = queue.shift();
    if (!job) break;
    // A block replaced meanwhile (its answer re-rendered, or gone): nothing to do.
    if (!job.code.isConnected) continue;
    show(job, highlightWith(library, job.text, job.lang), "idle");
  } while (performance.now() - started < QUICK_MS && deadline.timeRemaining() > QUICK_MS);
  asked = false;
  if (queue.length > 0) return ask();
  if (nothingLeft()) done();
}

/** Highlights `code` (a <code> holding `text` plain) later: in the worker, else in idle time. */
export function highlightLater(/** @type {Element} */ code, /** @type {string} */ text, /** @type {string} */ lang) {
  if (!code.isConnected) {
    // A history entry is rendered before its element is put in the list (chat-view.js): it is
    // there by the end of the task. A block still detached then (the renderer's warm-up) is
    // never shown: no worker is started for it.
    queueMicrotask(() => {
      if (code.isConnected) highlightLater(code, text, lang);
    });
    return;
  }
  const job = { code, text, lang };
  const to = theWorker();
  if (to) {
    const id = ++lastId;
    sent.set(id, job);
    to.postMessage({ id, lang, code: text });
    return;
  }
  queue.push(job);
  ask();
}

/** Resolves once every block given is highlighted. */
export function highlighted() {
  if (nothingLeft()) return Promise.resolve();
  return new Promise((resolve) => waiting.push(() => resolve(undefined)));
}
