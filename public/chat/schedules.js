// The chat's Schedules box (docs/schedules.md): each schedule's time and zone, its next run in
// this browser's time, the tools it may run without asking (shown back as the person chose
// them), its last outcome, Paused with Resume, and Remove; a form to make one, which
// `/schedule <when> <text>` opens prefilled. The list is the session's (`schedules` frames):
// every tab of the chat shows the same one. Changes go through the HTTP routes.
import { describeError, requestOrRefusal } from "../core/api.js";
import { button } from "../core/buttons.js";
import { byId } from "../core/dom.js";
import { state } from "../core/state.js";

/** @typedef {{ id: string, spec: string, timeZone: string, text: string, grants: string[], label?: string, nextAt?: number, lastRunAt?: number, lastOutcome?: string, paused?: string, runs: number }} ScheduleView */

const when = new Intl.DateTimeFormat(undefined, { weekday: "short", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });

/** How many words of `/schedule …` are the time: the rest is the message. @param {string[]} words */
function timeWords(words) {
  const head = (words[0] ?? "").toLowerCase();
  if (head === "hourly") return 1;
  if (head === "every" || head === "once") return 3;
  if (head === "cron") return 6;
  return 2;
}

/** `/schedule weekdays 08:00 summarise notes/` → {when, text}. @param {string} rest */
export function splitScheduleCommand(rest) {
  const words = rest.trim().split(/\s+/).filter(Boolean);
  const n = timeWords(words);
  return { when: words.slice(0, n).join(" "), text: words.slice(n).join(" ") };
}

/** @param {ScheduleView} item */
function describe(item) {
  const parts = [`${item.spec} (${item.timeZone})`];
  if (item.paused) parts.push("Paused");
  else if (item.nextAt) parts.push(`next ${when.format(new Date(item.nextAt))}`);
  return parts.join(" · ");
}

/** @param {ScheduleView} item @param {(message: string) => void} say */
function row(item, say) {
  const li = document.createElement("li");
  li.className = "schedule";
  li.dataset.schedule = item.id;
  const head = document.createElement("div");
  head.className = "schedule-when";
  head.textContent = describe(item);
  const text = document.createElement("div");
  text.className = "schedule-text";
  text.textContent = item.text;
  li.append(head, text);
  const grants = document.createElement("div");
  grants.className = "schedule-grants";
  grants.textContent = item.grants.length > 0 ? `May run without asking: ${item.grants.join(", ")}` : "Asks before every tool";
  li.append(grants);
  if (item.lastOutcome) {
    const last = document.createElement("div");
    last.className = "schedule-last";
    last.textContent = `Last run: ${item.lastOutcome}`;
    li.append(last);
  }
  const path = (suffix = "") => `/sessions/${encodeURIComponent(state.sessionId ?? "")}/schedules/${item.id}${suffix}`;
  const act = async (/** @type {HTMLButtonElement} */ b, /** @type {string} */ method, /** @type {string} */ suffix) => {
    b.disabled = true;
    const answer = await requestOrRefusal(path(suffix), { method });
    // The session's `schedules` frame redraws the list; only a refusal is said here.
    if (!answer.ok) {
      b.disabled = false;
      say(describeError(answer.status, answer.data));
    }
  };
  if (item.paused) {
    const resume = button("Resume", `Resume the schedule ${item.spec}`, () => act(resume, "POST", "/resume"));
    li.append(resume);
  }
  const remove = button("Remove", `Remove the schedule ${item.spec}`, () => act(remove, "DELETE", ""), "revoke");
  li.append(remove);
  return li;
}

/** A message a schedule wrote says so instead of being the person's. @param {HTMLElement} li @param {string} spec */
export function markScheduled(li, spec) {
  li.classList.add("scheduled");
  const badge = document.createElement("span");
  badge.className = "scheduled-badge";
  badge.textContent = `Scheduled · ${spec}`;
  li.prepend(badge);
}

/** Draws the chat's schedules (a `schedules` frame). @param {ScheduleView[]} items */
export function showSchedules(items) {
  const ul = byId("schedules");
  const say = (/** @type {string} */ message) => (byId("schedule-status").textContent = message);
  ul.replaceChildren(...items.map((item) => row(item, say)));
  byId("schedules-empty").hidden = items.length > 0;
}

/** The chat's tools as `server.tool`, for the grants picker. */
function chatTools() {
  return state.servers.filter((s) => s.enabled && s.state === "ready").flatMap((s) => (s.tools ?? []).map((t) => `${s.name}.${t}`));
}

/** Opens the form, prefilled (from `/schedule`). @param {{ when?: string, text?: string }} [prefill] */
export function openScheduleForm(prefill = {}) {
  const form = /** @type {HTMLFormElement} */ (byId("schedule-form"));
  const details = /** @type {HTMLDetailsElement} */ (byId("schedule-new"));
  // Filled once per opening: the toggle that follows must not fill it again (it would drop the prefill).
  form.dataset.filled = "1";
  details.open = true;
  /** @type {HTMLInputElement} */ (form.elements.namedItem("when")).value = prefill.when ?? "";
  /** @type {HTMLTextAreaElement} */ (form.elements.namedItem("text")).value = prefill.text ?? "";
  /** @type {HTMLInputElement} */ (form.elements.namedItem("timeZone")).value = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const grants = byId("schedule-grants");
  grants.replaceChildren(
    ...chatTools().map((tool) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.name = "grant";
      box.value = tool;
      label.append(box, ` ${tool}`);
      return label;
    }),
  );
  byId("schedule-status").textContent = "";
  /** @type {HTMLInputElement} */ (form.elements.namedItem("when")).focus();
}

export function setupSchedules() {
  const form = /** @type {HTMLFormElement} */ (byId("schedule-form"));
  const details = /** @type {HTMLDetailsElement} */ (byId("schedule-new"));
  details.addEventListener("toggle", () => {
    if (details.open && !form.dataset.filled) openScheduleForm();
    if (!details.open) delete form.dataset.filled;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = {
      when: String(data.get("when") ?? ""),
      timeZone: String(data.get("timeZone") ?? ""),
      text: String(data.get("text") ?? ""),
      grants: data.getAll("grant").map(String),
    };
    const status = byId("schedule-status");
    const answer = await requestOrRefusal(`/sessions/${encodeURIComponent(state.sessionId ?? "")}/schedules`, { method: "POST", body });
    if (!answer.ok) {
      status.textContent = describeError(answer.status, answer.data);
      return;
    }
    const made = /** @type {ScheduleView} */ (answer.data);
    status.textContent = `Scheduled ${made.spec}. ${made.grants.length > 0 ? `May run without asking: ${made.grants.join(", ")}.` : "Every tool call asks first."}`;
    form.reset();
    byId("schedule-grants").replaceChildren();
    details.open = false;
  });
}
