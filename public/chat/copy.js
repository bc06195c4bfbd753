// Copy buttons: one on each user and assistant message (copies what was written: the
// user's text, the answer's Markdown source) and one on each code block (its code).
// Through the asynchronous Clipboard API, from the click itself (a user gesture);
// where it is missing (a page served over plain http from another host), through a
// selected hidden textarea. Buttons carry their label in CSS (chat-looks.css) and
// their name in aria-label, so a message's textContent stays what it says.
import { byId } from "../core/dom.js";

/** What the copy button of a message copies. */
const sources = new WeakMap();
const COPIED_MS = 1500;

/** The button of a message, made once; `text` is what it copies (updated while an answer streams). */
export function setCopyText(/** @type {HTMLElement} */ li, /** @type {string} */ text) {
  sources.set(li, text);
  // Called for every delta of a streamed answer: the li's own few children, not its whole answer (a
  // `:scope > …` query walks every descendant; 0.9 s of a 60 KB answer's main thread at 4x CPU).
  for (const child of li.children) if (child.classList.contains("msg-actions")) return;
  const actions = document.createElement("span");
  actions.className = "msg-actions";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "copy-message";
  button.setAttribute("aria-label", "Copy message");
  button.title = "Copy message";
  actions.append(button);
  li.append(actions);
}

/** Writes `text` to the clipboard; resolves false when the browser refused. */
export async function copyText(/** @type {string} */ text) {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, not focused): try the old way below.
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "visually-hidden";
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand("copy");
  } catch {
    done = false;
  }
  area.remove();
  return done;
}

let status = null;
/** One polite live region says "Copied" (or why not) to a screen reader. */
function announce(/** @type {string} */ text) {
  if (!status) {
    status = document.createElement("p");
    status.id = "copy-status";
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    document.body.append(status);
  }
  status.textContent = text;
}

/** @param {HTMLButtonElement} button @param {string} text */
async function copyFrom(button, text) {
  const done = await copyText(text);
  button.dataset.copied = done ? "yes" : "no";
  announce(done ? "Copied" : "Could not copy: the browser refused");
  setTimeout(() => delete button.dataset.copied, COPIED_MS);
}

byId("messages").addEventListener("click", (/** @type {MouseEvent} */ event) => {
  const target = /** @type {Element} */ (event.target);
  const button = /** @type {HTMLButtonElement | null} */ (target.closest?.(".copy-message, .copy-code"));
  if (!button) return;
  if (button.classList.contains("copy-code")) {
    const code = button.closest(".code-block")?.querySelector("pre > code");
    if (code) void copyFrom(button, code.textContent ?? "");
    return;
  }
  const li = button.closest("li");
  if (li && sources.has(li)) void copyFrom(button, sources.get(li));
});
