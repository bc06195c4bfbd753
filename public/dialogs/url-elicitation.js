// A server's URL-mode question (MCP elicitation, mode "url"): the server wants the person
// to open a page of its own (a sign-in, a payment) that must not pass through this page.
// The dialog shows the server, its message and the URL's host, large (a look-alike host is
// the usual trick), with the full URL as plain text to read, never as a link; "Open" opens
// it in a new tab without a way back to this page (noopener, noreferrer), and only from the
// person's click. Once they agreed, the server is awaited: "waiting for <host>…" until the
// session says it is done (elicitation_resolved). The Worker sends only http(s) URLs;
// anything else is refused here too and can only be declined.
import { showDialog } from "./dialogs.js";
import { byId } from "../core/dom.js";

/**
 * @typedef {import("../core/types").Frame<"elicitation_request">} Question
 * @typedef {{ label: string, input: HTMLElement, message: string }} Problem
 * @typedef {{ canSend: boolean, problems: () => Problem[], content: () => undefined, title?: string, sendLabel?: string, onSend?: () => void }} Asked
 */

/** The URL when it is one this page may open, else null. */
function openable(raw) {
  try {
    const url = new URL(raw ?? "");
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

/**
 * Fills the question dialog's body for URL mode.
 * @param {HTMLElement} body
 * @param {Question} question
 * @returns {Asked}
 */
export function urlMode(body, question) {
  const url = openable(question.url);
  const note = (text, className = "hint") => {
    const p = document.createElement("p");
    p.className = className;
    p.textContent = text;
    return p;
  };
  if (!url) {
    body.replaceChildren(note("This server asks you to open something that is not a web page: decline or cancel it."));
    return { canSend: false, problems: () => [], content: () => undefined };
  }
  const host = document.createElement("p");
  host.className = "url-host";
  host.textContent = url.host;
  /** @type {HTMLElement[]} */
  const parts = [note("It asks you to open a page at", "url-lead"), host];
  // A host in Punycode may imitate another one's letters (MCP: warn about ambiguous URLs).
  if (url.hostname.split(".").some((label) => label.startsWith("xn--")))
    parts.push(note("This address uses international characters: check it is the site you expect.", "url-warning"));
  const full = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = "Full address";
  const code = document.createElement("code");
  code.className = "url-full";
  code.textContent = url.href;
  full.append(summary, code);
  parts.push(full);
  body.replaceChildren(...parts);
  return {
    canSend: true,
    title: "A server asks you to open a page",
    sendLabel: `Open ${url.host}`,
    problems: () => [],
    content: () => undefined,
    // From the click itself (a pop-up blocker lets only that through); the new tab cannot reach this page.
    onSend: () => void window.open(url.href, "_blank", "noopener,noreferrer"),
  };
}

const waitDialog = byId("url-wait-dialog");
/** Requests whose wait ended before its dialog could show (another one was showing): never shown. */
const over = new Set();

/** The session says `requestId` is done: a wait still queued for it does not show. */
export function waitOver(requestId) {
  over.add(requestId);
}

/**
 * The person agreed to go: "waiting for <host>…" until the session closes it
 * (closeIfShowing with the request's id), or the person says they are done there
 * (resolves "done": the session is told, as a server need not say it) or hides it.
 * @param {Question} question
 * @returns {Promise<string>}
 */
export function showWaiting(question) {
  if (waitDialog.open && waitDialog.dataset.requestId === question.requestId) return Promise.resolve("handled");
  return showDialog(
    waitDialog,
    "hide",
    () => {
      byId("url-wait-text").textContent = `Waiting for ${openable(question.url)?.host ?? question.host ?? "the server"}…`;
      byId("url-wait-server").textContent = `${question.server} goes on once you have finished there.`;
      waitDialog.dataset.requestId = question.requestId;
      if (over.has(question.requestId)) queueMicrotask(() => waitDialog.close("handled"));
      // Guarded like a question (dialogs.js): it may open in another tab while the person types there.
    },
    { guard: true },
  );
}
