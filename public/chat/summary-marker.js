// A summary entry (compaction) in the chat: a marker after the last turn it stands in
// for, "Earlier turns summarized", that opens to the summary the model now reads
// instead of them. The turns themselves stay shown above it.
import { renderMarkdownInto } from "./markdown-load.js";

/**
 * @param {HTMLElement} list the chat's list
 * @param {import("../core/types").HistoryEntry} entry
 */
export function showSummary(list, entry) {
  const li = document.createElement("li");
  li.className = "msg summary";
  if (entry.turnId) li.dataset.turn = entry.turnId;
  const details = document.createElement("details");
  const title = document.createElement("summary");
  const turns = entry.summaryOf?.turns ?? 0;
  title.textContent = `Earlier turns summarized (${turns} ${turns === 1 ? "turn" : "turns"}): the model reads this instead`;
  const body = document.createElement("div");
  body.className = "body";
  renderMarkdownInto(body, entry.text ?? "");
  details.append(title, body);
  li.append(details);
  // Stored after the turn that was running when it was made: placed after the turns it covers.
  const covered = [...list.querySelectorAll(":scope > li:not(.pending)")].filter((el) => el instanceof HTMLElement && el.dataset.turn === entry.turnId);
  const last = covered[covered.length - 1];
  if (last) last.after(li);
  else list.insertBefore(li, list.querySelector(":scope > .pending"));
}
