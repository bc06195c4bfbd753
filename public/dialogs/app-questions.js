// Approvals an app connected to /mcp waits for (issue 38): a client that cannot ask its person
// holds its call while this page shows the question (src/gateway/held-approval.ts). The page
// reads GET /api/apps/questions every POLL_MS, only while it is signed in, visible, and the
// person has connected apps (the load's GET /api/bootstrap says how many: nobody else pays a
// request), and lists each question in a banner under the header: "<app> asks to run
// server.tool". Its button opens the chat's approval dialog (arguments shown by
// approval-args.js) and the answer goes to POST /api/apps/:appId/answers. Everything a
// question carries came from an app or a server: shown with textContent only.
import { request } from "../core/api.js";
import { byId } from "../core/dom.js";
import { askApproval, closeIfShowing } from "./dialogs.js";

const POLL_MS = 3_000;

/** @typedef {{ id: string, appId: string, appName: string, server: string, tool: string, arguments: Record<string, unknown>, expiresAt: number }} AppQuestion */

/** @type {Map<string, AppQuestion>} the questions the banner shows, by id */
const shown = new Map();
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
let watching = false;
/** The question whose dialog is open (one at a time: the dialog queues the rest). */
let asking = new Set();

/** @returns {HTMLElement} */
function banner() {
  let el = document.getElementById("app-questions");
  if (!el) {
    el = document.createElement("section");
    el.id = "app-questions";
    el.className = "banner app-questions";
    el.setAttribute("aria-label", "Apps waiting for your approval");
    el.hidden = true;
    byId("alert").after(el);
  }
  return el;
}

function draw() {
  const el = banner();
  el.replaceChildren();
  for (const question of shown.values()) {
    const row = document.createElement("div");
    row.className = "app-question";
    const text = document.createElement("span");
    text.textContent = `${question.appName} asks to run ${question.server}.${question.tool}`;
    const open = document.createElement("button");
    open.type = "button";
    open.textContent = "Review…";
    open.dataset.questionId = question.id;
    open.addEventListener("click", () => void answer(question));
    row.append(text, open);
    el.append(row);
  }
  el.hidden = shown.size === 0;
}

/** @param {AppQuestion} question */
async function answer(question) {
  if (asking.has(question.id)) return;
  asking.add(question.id);
  try {
    const choice = await askApproval(
      { callId: question.id, kind: "tool", server: question.server, tool: question.tool, arguments: question.arguments },
      { always: "", title: `${question.appName} asks to run a tool` },
    );
    // Closed because it was answered elsewhere, expired, or the page signed out: nothing to send.
    if (choice !== "approve" && choice !== "deny") return;
    const sent = await request(`/api/apps/${encodeURIComponent(question.appId)}/answers`, {
      method: "POST",
      body: { id: question.id, approved: choice === "approve" },
    }).catch(() => null);
    // 409/410: answered elsewhere or too late; either way it is no longer a question here.
    if (sent && (sent.ok || sent.status === 409 || sent.status === 410 || sent.status === 404)) shown.delete(question.id);
    draw();
  } finally {
    asking.delete(question.id);
  }
}

async function poll() {
  timer = undefined;
  if (!watching || document.visibilityState !== "visible") return;
  const read = await request("/api/apps/questions").catch(() => null);
  if (read?.ok && Array.isArray(read.data?.questions)) {
    const now = new Map(read.data.questions.map((/** @type {AppQuestion} */ q) => [q.id, q]));
    for (const id of shown.keys()) {
      // Gone from the account (answered in another tab, expired): its dialog closes unanswered.
      if (!now.has(id)) closeIfShowing(id, "handled");
    }
    shown.clear();
    for (const [id, q] of now) shown.set(id, q);
    draw();
  }
  schedule();
}

function schedule() {
  clearTimeout(timer);
  timer = undefined;
  if (watching && document.visibilityState === "visible") timer = setTimeout(poll, POLL_MS);
}

document.addEventListener("visibilitychange", () => {
  if (!watching) return;
  // Seen again: look at once (a question may have come while the tab was hidden).
  if (document.visibilityState === "visible") void poll();
  else schedule();
});

/**
 * Signed in: watch when the person has connected apps (`summary` is the bootstrap's `apps`).
 * Open questions, or a page opened from an approval_pending link (#apps), are read at once.
 * @param {{ connected: number, questions: number } | undefined | null} summary
 */
export function watchAppQuestions(summary) {
  watching = (summary?.connected ?? 0) > 0;
  if (!watching) return;
  if ((summary?.questions ?? 0) > 0 || location.hash === "#apps") void poll();
  else schedule();
}

/** Signed out: no more reads, and nothing of the last person's questions stays on the page. */
export function stopAppQuestions() {
  watching = false;
  clearTimeout(timer);
  timer = undefined;
  shown.clear();
  asking = new Set();
  draw();
}
