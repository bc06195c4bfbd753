// The first run without a model: the session records, under each message, why it got no
// answer (the no-model notice: which variable to set, and where). The page shows it as
// the answer to that message, and in the banner, both with what the notice leaves out:
// `wrangler dev` reads .dev.vars only when it starts, so `npm run dev` must be restarted.
import { renderInlineInto } from "../chat/markdown.js";

const RESTART = "Then restart `npm run dev` (Ctrl+C, and run it again): `wrangler dev` reads `.dev.vars` only when it starts.";

/** The notice, with the restart step when it sends the user to .dev.vars. */
export function withRestart(/** @type {string} */ notice) {
  const text = String(notice ?? "").trim();
  return text.includes(".dev.vars") && !text.includes("npm run dev") ? `${text} ${RESTART}` : text;
}

/** The answer under a message that found no model (an <li> like an assistant's, marked no-model). */
export function noModelAnswer(/** @type {HTMLElement} */ li, /** @type {string} */ notice) {
  li.classList.add("no-model");
  const title = document.createElement("strong");
  title.className = "no-model-title";
  title.textContent = "No model is set up yet, so nothing answered this message.";
  const body = document.createElement("p");
  body.className = "body";
  renderInlineInto(body, withRestart(notice));
  li.append(title, body);
}
