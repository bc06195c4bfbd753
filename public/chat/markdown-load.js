// The Markdown renderer (markdown.js: markdown-it, DOMPurify, the highlighter's glue), about
// half of the page's script, is a chunk of its own (issue 37: a first visit shows no answer at
// all). index.html prefetches it at the lowest priority (scripts/build-page.mjs); it is
// evaluated in the first idle moment after the chat's socket is asked for (app.js), usually
// while the socket opens, never as a task of its own in the page's way to interactive. The
// page renders through this module: once the chunk is there it calls the renderer directly;
// before, it shows the text plainly (as stream-plain.js shows a streaming answer's tail) and
// renders it when the chunk is there, so a chat whose history comes first is readable at
// once and looks the same a moment later.
import { scrollToEnd } from "./follow.js";

/** @typedef {typeof import("./markdown.js")} Renderer */

/** The idle moment is waited for at most this long: a page kept busy still renders its answers soon. */
const IDLE_TIMEOUT_MS = 1000;

/** @type {Renderer | null} */
let renderer = null;
/** @type {Promise<Renderer> | null} */
let loading = null;
let idleAsked = false;
/** @type {(module: Renderer) => void} */
let resolveLoaded = () => undefined;
/** Resolves once the renderer is there (without asking for it). @type {Promise<Renderer>} */
export const markdownLoaded = new Promise((resolve) => (resolveLoaded = resolve));
/**
 * Elements shown plainly, waiting for the renderer, with what to render into each; a later
 * call for the same element replaces its entry (only the newest text counts).
 * @type {Map<Element, { text: string, inline: boolean }>}
 */
const waiting = new Map();

/** Loads the renderer now (once); resolves with it. A failed load is tried again by the next call. */
export function loadMarkdown() {
  loading ??= import("./markdown.js").then(
    (module) => {
      renderer = module;
      upgrade(module);
      resolveLoaded(module);
      return module;
    },
    (error) => {
      loading = null;
      idleAsked = false;
      throw error;
    },
  );
  return loading;
}

/** Loads the renderer in the next idle moment (at most IDLE_TIMEOUT_MS from now). */
export function loadMarkdownWhenIdle() {
  if (renderer || idleAsked) return;
  idleAsked = true;
  const load = () =>
    void loadMarkdown().catch(() => {
      // Offline, or a replaced build: answers stay plain; the next render asks again.
    });
  if (typeof requestIdleCallback === "function") requestIdleCallback(load, { timeout: IDLE_TIMEOUT_MS });
  else setTimeout(load, 0);
}

/** Renders what was shown plainly meanwhile: each element still on the page, with its newest text. @param {Renderer} module */
function upgrade(module) {
  const pending = [...waiting];
  waiting.clear();
  for (const [element, { text, inline }] of pending) {
    if (!element.isConnected) continue;
    if (inline) {
      module.renderInlineInto(element, text);
      continue;
    }
    // A streaming answer's unrendered tail (stream-plain.js) stays after the text, where it was.
    const open = [...element.children].filter((child) => child.classList.contains("md-open") && !child.classList.contains("md-pending"));
    module.renderMarkdownInto(element, text);
    element.append(...open);
  }
  // Rendered, an answer is another height: a reader following the chat stays at its end.
  if (pending.length > 0) scrollToEnd();
}

/** The text, plainly (line breaks kept), until the renderer is there. */
function showPlain(/** @type {Element} */ element, /** @type {string} */ text, /** @type {boolean} */ inline) {
  const box = document.createElement(inline ? "span" : "div");
  // .md-open: as written, line breaks kept (call-looks.css); .md-pending: this module's, not stream-plain.js's.
  box.className = "md-open md-pending";
  box.textContent = text;
  element.replaceChildren(box);
  waiting.set(element, { text, inline });
  loadMarkdownWhenIdle();
}

/**
 * markdown.js's renderMarkdownInto, or the text plainly until it has loaded. Returns the
 * characters it parsed as Markdown (0 when shown plainly).
 * @param {Element} element @param {unknown} source @returns {number}
 */
export function renderMarkdownInto(element, source) {
  const text = String(source ?? "");
  if (renderer) return renderer.renderMarkdownInto(element, text);
  showPlain(element, text, false);
  return 0;
}

/** markdown.js's renderInlineInto (one line: notices), or the text plainly until it has loaded. @param {Element} element @param {unknown} source */
export function renderInlineInto(element, source) {
  const text = String(source ?? "");
  if (renderer) return renderer.renderInlineInto(element, text);
  showPlain(element, text, true);
}

/** Resolves once no code block waits to be highlighted (none can before the renderer is there). */
export function highlighted() {
  return renderer ? renderer.highlighted() : Promise.resolve();
}
