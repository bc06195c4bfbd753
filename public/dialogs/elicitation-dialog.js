// A server's question (MCP elicitation) in its dialog. How it is asked depends on the
// request's mode: each mode in MODES fills the dialog's body and says what "Send" answers
// (URL mode, url-elicitation.js: the page to open, then a wait).
// Decline and Cancel always answer, whatever the form holds: they skip the form's checks
// (`formnovalidate` in index.html), so an empty required field never blocks a "no". Send
// checks the form first and says what is wrong. The dialog opens guarded like an approval
// (dialogs.js): keys typed as it opens go on into the message box until the person
// clicks or Tabs into it, so text meant for the chat never lands in the server's form.
import { showDialog } from "./dialogs.js";
import { byId } from "../core/dom.js";
import { buildSchemaForm } from "./schema-form.js";
import { urlMode } from "./url-elicitation.js";

/**
 * @typedef {{ requestId: string, server: string, message: string, mode?: string, schema?: Record<string, unknown>, url?: string, host?: string }} Question
 * @typedef {{ label: string, input: HTMLElement, message: string }} Problem
 * @typedef {{ canSend: boolean, problems: () => Problem[], content: () => Record<string, unknown> | undefined, title?: string, sendLabel?: string, onSend?: () => void }} Asked
 * @typedef {import("../core/types").Outgoing<"elicitation_response">} Answer
 */

/** @type {Record<string, (body: HTMLElement, question: Question) => Asked>} */
const MODES = {
  form(body, question) {
    const read = buildSchemaForm(body, question.schema, { roomy: true });
    return { canSend: true, problems: () => read.problems(), content: () => read() };
  },
  url: urlMode,
};

/** A mode this page does not know: it can only be declined or cancelled, and says so. */
function unknownMode(body) {
  const note = document.createElement("p");
  note.className = "hint";
  note.textContent = "This page cannot answer this kind of question: decline or cancel it.";
  body.replaceChildren(note);
  return { canSend: false, problems: () => [], content: () => undefined };
}

const dialog = byId("elicitation-dialog");
const send = byId("elicitation-accept");
const error = byId("elicitation-error");
/** @type {Asked | null} the open question */
let asked = null;
/** @type {Record<string, unknown> | undefined} what Send answered with, read once its checks passed */
let sent;

dialog.querySelector("form")?.addEventListener("submit", (event) => {
  // Decline and Cancel close the dialog as a plain method="dialog" form does.
  if (!(event.submitter instanceof HTMLButtonElement) || event.submitter !== send || !asked) return;
  event.preventDefault();
  const problems = asked.problems();
  let content;
  try {
    content = problems.length === 0 ? asked.content() : undefined;
  } catch (reason) {
    problems.push({ label: "", input: send, message: String(reason instanceof Error ? reason.message : reason) });
  }
  if (problems.length > 0) {
    error.textContent = problems.map((p) => (p.label ? `${p.label}: ${p.message}.` : `${p.message}.`)).join(" ");
    problems[0]?.input.focus();
    return;
  }
  sent = content;
  asked.onSend?.();
  dialog.close("accept");
});

/**
 * Shows a server's question; resolves with the answer the server gets:
 * `accept` with the content, `decline` or `cancel` (or what closeIfShowing closed it with).
 * @param {Question} question
 * @returns {Promise<{ action: Answer["action"] | "handled", content: Answer["content"] }>}
 */
export function askElicitation(question) {
  return showDialog(
    dialog,
    "cancel",
    () => {
      byId("elicitation-message").textContent = `${question.server}: ${question.message}`;
      error.textContent = "";
      sent = undefined;
      const body = byId("elicitation-fields");
      asked = (MODES[question.mode ?? "form"] ?? unknownMode)(body, question);
      byId("elicitation-title").textContent = asked.title ?? "A server asks for input";
      send.textContent = asked.sendLabel ?? "Send";
      send.hidden = !asked.canSend;
      dialog.dataset.requestId = question.requestId;
    },
    { guard: true },
  ).then((closedWith) => {
    // The values are checked again by the Worker (src/protocol/messages.ts), which refuses a wrong shape.
    const content = /** @type {Answer["content"]} */ (closedWith === "accept" ? sent : undefined);
    asked = null;
    sent = undefined;
    return { action: /** @type {Answer["action"] | "handled"} */ (closedWith), content };
  });
}
