// An entry a history window sent shortened (`cut`: a big tool result or a long
// text, src/session/history-window.ts) gets a button that fetches it whole
// (GET /sessions/{id}/history/{seq}) and shows it in place.
import { request } from "../core/api.js";
import { state } from "../core/state.js";

/** @typedef {import("../core/types").HistoryEntry} HistoryEntry */

const count = new Intl.NumberFormat(document.documentElement.lang || undefined);

/**
 * @param {HTMLElement} after the button goes right after it
 * @param {HistoryEntry} entry
 * @param {(whole: HistoryEntry) => void} show
 */
export function offerWhole(after, entry, show) {
  if (!entry.cut) return;
  after.parentElement?.querySelector(":scope > .show-whole")?.remove();
  const button = document.createElement("button");
  button.type = "button";
  button.className = "show-whole";
  button.textContent = `Show all (${count.format(entry.cut.chars)} characters)`;
  button.addEventListener("click", async () => {
    const sessionId = state.sessionId;
    if (!sessionId) return;
    button.disabled = true;
    try {
      const answer = await request(`/sessions/${encodeURIComponent(sessionId)}/history/${entry.seq}`);
      if (answer.ok && answer.data?.entry) {
        button.remove();
        show(answer.data.entry);
        return;
      }
      button.textContent = "Could not load it: try again";
    } catch {
      button.textContent = "Offline: try again";
    }
    button.disabled = false;
  });
  after.after(button);
}
