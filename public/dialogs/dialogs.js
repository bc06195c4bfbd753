// The modal dialogs: tool approval and confirmation (a server's question is
// elicitation-dialog.js, on showDialog from here). Native
// <dialog> gives Escape and an inert page behind it; Tab and Shift+Tab are kept
// inside the dialog here (the browser would otherwise move focus out of it once
// the last button is passed), and focus returns where it was when it closes.
import { showArguments } from "./approval-args.js";
import { showRuleBuilder } from "./rule-builder.js";
import { toolDescription } from "../chat/tool-info.js";
import { byId } from "../core/dom.js";

const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/**
 * Whether a closed <details> hides this element (its own summary stays a stop). Chromium gives the
 * hidden content boxes when asked, so getClientRects alone would count it, and focus() on it does nothing.
 * @param {Element} el
 */
function shut(el) {
  for (let details = el.closest("details:not([open])"); details; details = details.parentElement?.closest("details:not([open])") ?? null) {
    if (!(el.tagName === "SUMMARY" && el.parentElement === details)) return true;
  }
  return false;
}

function trapFocus(dialog) {
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const items = [...dialog.querySelectorAll(FOCUSABLE)].filter((el) => el.getClientRects().length > 0 && !shut(el));
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    // A guarded dialog holds focus itself (guardAgainstTyping): Tab goes to its first field, Shift+Tab to its last.
    const inside = dialog.contains(document.activeElement) && document.activeElement !== dialog;
    if (event.shiftKey && (document.activeElement === first || !inside)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (document.activeElement === last || !inside)) {
      event.preventDefault();
      first.focus();
    }
  });
}

for (const dialog of document.querySelectorAll("dialog")) trapFocus(dialog);

/**
 * How long a question's buttons stay disabled after it opens, as browsers do for their
 * permission prompts: a key or click meant for something else must not answer it.
 */
export const ARM_DELAY_MS = 700;

const TYPING_KEYS = new Set(["Backspace", "Delete", "Enter"]);

/**
 * An approval or a server's question opens while the user may be typing: the dialog takes
 * focus itself (not a button, where Space or Enter would answer it, nor a field, where the
 * text would go to the server), its buttons wait ARM_DELAY_MS, and what is typed meanwhile
 * goes on into the message box, so nothing is answered and nothing is lost. A click or Tab
 * moves into the dialog; from there keys are the answer.
 */
function guardAgainstTyping(dialog, composer) {
  const buttons = [...dialog.querySelectorAll("button")];
  for (const button of buttons) button.disabled = true;
  dialog.dataset.arming = "";
  const timer = setTimeout(() => {
    for (const button of buttons) button.disabled = false;
    delete dialog.dataset.arming;
  }, ARM_DELAY_MS);
  dialog.tabIndex = -1;
  dialog.focus();
  const onKey = (event) => {
    // Only keys that reach the dialog itself: Tab to a button and Space or Enter still answer, on purpose.
    if (event.target !== dialog || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key.length !== 1 && !TYPING_KEYS.has(event.key)) return;
    event.preventDefault();
    if (!composer || event.key === "Enter") return;
    const { selectionStart: start, selectionEnd: end, value } = composer;
    if (event.key === "Backspace") composer.setRangeText("", start === end ? Math.max(0, start - 1) : start, end, "end");
    else if (event.key === "Delete") composer.setRangeText("", start, start === end ? Math.min(value.length, end + 1) : end, "end");
    else composer.setRangeText(event.key, start, end, "end");
    composer.dispatchEvent(new Event("input", { bubbles: true }));
  };
  dialog.addEventListener("keydown", onKey);
  dialog.addEventListener(
    "close",
    () => {
      clearTimeout(timer);
      for (const button of buttons) button.disabled = false;
      delete dialog.dataset.arming;
      dialog.removeEventListener("keydown", onKey);
    },
    { once: true },
  );
}

/** Per dialog, the question being asked: a second one waits until it is answered. */
const queues = new WeakMap();

/**
 * Fills (`prepare`) and shows `dialog` once it is free; resolves with the button's value.
 * `guard`: it may open while the user types (guardAgainstTyping).
 * @param {HTMLDialogElement} dialog
 * @param {string} fallback
 * @param {() => void} [prepare]
 * @param {{ guard?: boolean }} [options]
 * @returns {Promise<string>}
 */
export function showDialog(dialog, fallback, prepare = () => {}, { guard = false } = {}) {
  const ask = () =>
    new Promise((resolve) => {
      prepare();
      const before = document.activeElement;
      dialog.returnValue = "";
      dialog.addEventListener(
        "close",
        () => {
          if (before instanceof HTMLElement && before.isConnected) before.focus();
          resolve(dialog.returnValue || fallback);
        },
        { once: true },
      );
      dialog.showModal();
      if (guard) guardAgainstTyping(dialog, before instanceof HTMLTextAreaElement || before instanceof HTMLInputElement ? before : byId("composer-input"));
    });
  const answer = (queues.get(dialog) ?? Promise.resolve()).then(ask);
  queues.set(
    dialog,
    answer.catch(() => {}),
  );
  return answer;
}

/**
 * Shows one approval; resolves with "approve" | "always" | "deny" (or whatever
 * closeIfShowing closed it with). `always` labels the remembering button ("": none);
 * `title`: the question's own heading (an app's held call, app-questions.js);
 * `rules`: offer "Allow when …" (rule-builder.js; resolves "rule", builtRule() says which);
 * `refusal`: why the Worker refused the rule this question was last answered with (shown, the builder open).
 * @param {any} request
 * @param {{ always?: string, title?: string, rules?: boolean, refusal?: string }} [options]
 */
export function askApproval(request, { always = "Always allow in this chat", title = "", rules = false, refusal } = {}) {
  const dialog = byId("approval-dialog");
  const sampling = request.kind === "sampling";
  return showDialog(
    dialog,
    "deny",
    () => {
      byId("approval-title").textContent = title
        ? title
        : sampling
          ? `"${request.server}" asks the model to answer`
          : request.fromApp
            ? `The ${request.server} app asks to call a tool`
            : "Allow this tool call?";
      byId("approval-what").textContent = sampling ? "The server wants this prompt sent to the model:" : `${request.server}.${request.tool}`;
      // A tool call: its description and its arguments, readable (approval-args.js); a sampling request: its prompt.
      byId("approval-args").textContent = sampling ? (request.prompt ?? "") : "";
      byId("approval-args").hidden = !sampling;
      byId("approval-fields").hidden = sampling;
      if (!sampling) showArguments(byId("approval-fields"), request.arguments);
      const description = byId("approval-description");
      description.hidden = true;
      description.textContent = "";
      if (!sampling && request.tool) {
        void toolDescription(request.server, request.tool, request.sessionId).then((text) => {
          if (dialog.dataset.callId !== request.callId || !text) return;
          description.textContent = text;
          description.hidden = false;
        });
      }
      showRuleBuilder(rules && !sampling ? request : { callId: request.callId, server: request.server }, refusal);
      byId("approve-always").textContent = always;
      byId("approve-always").hidden = sampling || !always;
      dialog.dataset.callId = request.callId;
    },
    { guard: true },
  );
}

/** A yes/no question; resolves true only when the user confirmed. */
export async function confirmAction({ title, text, confirm }) {
  const dialog = byId("confirm-dialog");
  const answer = await showDialog(dialog, "cancel", () => {
    byId("confirm-title").textContent = title;
    byId("confirm-text").textContent = text;
    byId("confirm-ok").textContent = confirm;
  });
  return answer === "confirm";
}

/** Closes a dialog another tab (or the server) already answered. */
export function closeIfShowing(id, value) {
  for (const dialog of /** @type {NodeListOf<HTMLDialogElement>} */ (document.querySelectorAll("dialog[open]"))) {
    if (dialog.dataset.callId === id || dialog.dataset.requestId === id) dialog.close(value);
  }
}

/** Closes every open dialog (sign-out, session switch). */
export function closeAll(value = "handled") {
  for (const dialog of /** @type {NodeListOf<HTMLDialogElement>} */ (document.querySelectorAll("dialog[open]"))) dialog.close(value);
}
