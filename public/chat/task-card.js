// A tool call's task (MCP Tasks, docs/mcp-features.md#tasks) on its tool card: the task's
// state under the card's summary, from the session's `task` frames (live, and again for
// every held task when a page connects, so a reload shows it), and a Cancel while it runs
// (`cancel_task`; the session takes it only from the owner's sockets). A task that ended with
// no turn waiting opens a follow-up turn: its first entry is shown as a note of the task.
import { button } from "../core/buttons.js";

/** @typedef {import("../core/types").Frame<"task">} TaskFrame */

const ENDED = new Set(["completed", "failed", "cancelled"]);
const WORDS = { working: "task running…", input_required: "task needs input", completed: "task completed", failed: "task failed", cancelled: "task cancelled" };

/**
 * A follow-up turn's opening (a task ended with no turn waiting for it): what the model was
 * told, shown as a note of the task ("Task server.tool finished"), the text folded under it.
 * @param {HTMLElement} li
 * @param {import("../core/types").HistoryEntry} entry a user entry with `task`
 */
export function showTaskNote(li, entry) {
  const task = entry.task;
  if (!task) return;
  li.dataset.seq = String(entry.seq);
  li.dataset.callId = task.callId;
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = `Task ${task.server}.${task.tool} ${task.outcome === "failed" ? "ended without a result" : "finished"}`;
  const body = document.createElement("pre");
  body.className = "task-note-text";
  // Wrapped: the result's long lines stay inside the note (set here, not in the shared sheets).
  body.style.whiteSpace = "pre-wrap";
  body.textContent = entry.text ?? "";
  details.append(summary, body);
  li.append(details);
}

/**
 * @param {TaskFrame} task
 * @param {(message: import("../core/types").ClientMessage) => void} send
 */
export function showTask(task, send) {
  const el = document.querySelector(`.tool-card[data-call-id="${CSS.escape(task.callId)}"]`);
  if (!el) return;
  /** @type {HTMLElement | null} */
  let box = el.querySelector(":scope > .tool-task");
  if (!box) {
    box = document.createElement("div");
    box.className = "tool-task";
    box.innerHTML = `<span class="task-state" role="status"></span>`;
    el.querySelector(":scope > details")?.after(box);
  }
  box.dataset.status = task.status;
  box.querySelector(".task-state").textContent = `${WORDS[task.status] ?? task.status}${task.message ? `: ${task.message}` : ""}`;
  const cancel = box.querySelector(".task-cancel");
  if (ENDED.has(task.status)) {
    cancel?.remove();
  } else if (!cancel) {
    const name = `${task.server}.${task.tool}`;
    const b = button(
      "Cancel",
      `Cancel the task of ${name}`,
      () => {
        b.disabled = true;
        send({ type: "cancel_task", callId: task.callId });
      },
      "task-cancel",
    );
    box.append(b);
  }
}
