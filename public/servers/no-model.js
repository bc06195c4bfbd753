// No model yet: the banner, and the answer under each message that found none, say it
// in a line or two: the one command that applies to how this Worker runs (dev or
// deployed: GET /api/models' `setup`, no-model-command.js), where to get a key, a way
// to bring one's own provider, and the Worker's whole sentence folded under "Details".
// Until the page knows how the Worker runs it shows that sentence, with the step it
// leaves out: `wrangler dev` reads .dev.vars only when it starts.
import { loadMarkdown, renderInlineInto } from "../chat/markdown-load.js";
import { keyLink, setupLine } from "./no-model-command.js";

/** @typedef {import("./no-model-command.js").ModelSetup} ModelSetup */

const RESTART = "Then restart `npm run dev` (Ctrl+C, and run it again): `wrangler dev` reads `.dev.vars` only when it starts.";

/** @type {ModelSetup | null} */
let setup = null;
/** Elements showing a notice, drawn again once `setup` is known: element → the Worker's sentence, and whether it leads. */
const shown = new Map();

/** The notice, with the restart step when it sends the user to .dev.vars. */
export function withRestart(/** @type {string} */ notice) {
  const text = String(notice ?? "").trim();
  return text.includes(".dev.vars") && !text.includes("npm run dev") ? `${text} ${RESTART}` : text;
}

/** GET /api/models said how the Worker runs (or that it has a model: null). @param {ModelSetup | null | undefined} next */
export function noteModelSetup(next) {
  setup = next ?? null;
  for (const element of [...shown.keys()]) {
    if (element.isConnected) void drawn(element);
    else shown.delete(element);
  }
}

/**
 * Shows the no-model notice in an element: the banner (`lead`: it says "No model yet"
 * first), or an answer's body (its title says so already). Resolves once it is drawn.
 * @param {HTMLElement} element @param {string} notice @param {boolean} [lead]
 */
export function renderNoModel(element, notice, lead = false) {
  shown.set(element, { notice, lead });
  return drawn(element);
}

/**
 * Draws the element's newest notice once the Markdown renderer is there: the notice is the
 * first thing a page without a model shows, and its commands must read as code from the
 * start, never as raw `marks` (the renderer is a lazy chunk, markdown-load.js). A failed
 * load draws it plainly rather than not at all.
 * @param {HTMLElement} element
 */
async function drawn(element) {
  await loadMarkdown().catch(() => undefined);
  const entry = shown.get(element);
  if (entry && element.isConnected) draw(element, entry.notice, entry.lead);
}

/** @param {HTMLElement} element @param {string} notice @param {boolean} lead */
function draw(element, notice, lead) {
  if (!setup) return renderInlineInto(element, withRestart(notice));
  const line = document.createElement("span");
  line.className = "no-model-line";
  renderInlineInto(line, `${lead ? "**No model yet.** " : ""}${setupLine(setup)}`);
  const more = document.createElement("span");
  more.className = "no-model-more";
  const link = keyLink(setup);
  if (link) {
    const a = document.createElement("a");
    a.href = link;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    a.textContent = "Get a Gemini key";
    more.append(a);
  }
  const own = document.createElement("button");
  own.type = "button";
  own.className = "link-button";
  own.textContent = "Add your own provider";
  own.addEventListener("click", () => document.getElementById("my-providers-open")?.click());
  const why = document.createElement("details");
  why.className = "no-model-why";
  const summary = document.createElement("summary");
  summary.textContent = "Details";
  const whole = document.createElement("p");
  renderInlineInto(whole, notice);
  why.append(summary, whole);
  more.append(own, why);
  element.replaceChildren(line, more);
}

/** The answer under a message that found no model (an <li> like an assistant's, marked no-model). */
export function noModelAnswer(/** @type {HTMLElement} */ li, /** @type {string} */ notice) {
  li.classList.add("no-model");
  const title = document.createElement("strong");
  title.className = "no-model-title";
  title.textContent = "No model is set up yet, so nothing answered this message.";
  const body = document.createElement("div");
  body.className = "body";
  renderNoModel(body, notice);
  li.append(title, body);
}
