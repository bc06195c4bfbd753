// The sidebar's "Notifications when away" block, in "This browser" (docs/notifications.md):
// whether this deployment can push at all (and if not, why and what fixes it), "Notify me on
// this browser" / "Stop on this browser", the person's devices (label, last result, Test,
// Remove), and whether a push may name the chat and the tool. Everything comes from
// GET /api/push; the browser side of a device is push-device.js.
import { describeError, requestOrRefusal as ask } from "../core/api.js";
import { browserSettings } from "../core/theme.js";
import { currentSubscription, deviceIdOf, notePushActive, onOpenChat, pushSupported, turnOff, turnOn } from "./push-device.js";

/** @typedef {{ id: string, label: string, createdAt: number, lastOkAt: number | null, failing: boolean }} DeviceView */
/** @typedef {{ state: "on" | "off", reason?: string, problem?: string, publicKey?: string, detail: "full" | "minimal", devices: DeviceView[], dropped?: { count: number, lastAt: number | null }, perHour?: number }} PushState */

// A disclosure read when opened: the page's load makes no request for it (tests/e2e/page-load).
const block = document.createElement("details");
block.id = "push-settings";
block.className = "push-settings";
block.innerHTML = `<summary>Notifications when away</summary>
  <p id="push-state" class="push-state">Reading…</p>
  <p id="push-dropped" class="push-dropped" hidden></p>
  <div class="push-actions"><button type="button" id="push-enable" hidden>Notify me on this browser</button>
  <button type="button" id="push-disable" hidden>Stop on this browser</button></div>
  <label class="push-detail" hidden><input type="checkbox" id="push-detail"> Show chat and tool names</label>
  <ul id="push-devices" class="push-devices" aria-label="Your notified devices"></ul>
  <p id="push-note" class="push-note" role="status"></p>`;

const $ = (/** @type {string} */ selector) => /** @type {any} */ (block.querySelector(selector));
const stateLine = $("#push-state");
const droppedLine = $("#push-dropped");
const enable = $("#push-enable");
const disable = $("#push-disable");
const detail = $("#push-detail");
const list = $("#push-devices");
const note = $("#push-note");

/** @type {PushState | null} */
let current = null;
/** This browser's device id, when it has a subscription. */
let ownId = "";
let ownEndpoint = "";

const DENIED =
  "Notifications are blocked for this site in this browser. To turn them on, allow notifications in the site's settings (the icon left of the address), then reload.";

function say(/** @type {string} */ text) {
  note.textContent = text;
}

const when = (/** @type {number} */ at) => new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** The last result of a device, as the list says it. */
function lastResult(/** @type {DeviceView} */ device) {
  if (device.failing) return "failing: its push service refused the last notification";
  return device.lastOkAt ? `last delivered ${when(device.lastOkAt)}` : "nothing sent yet";
}

/** Notifications PUSH_PER_HOUR kept back (GET /api/push `dropped`), said only when there were any. */
function droppedNote(/** @type {PushState} */ push) {
  const count = push.dropped?.count ?? 0;
  if (push.state !== "on" || count === 0) return "";
  const last = push.dropped?.lastAt ? `, the last ${when(push.dropped.lastAt)}` : "";
  const limit = push.perHour ? ` (the limit is ${push.perHour} an hour${last})` : "";
  return `${count === 1 ? "1 notification was" : `${count} notifications were`} not sent: too many came within an hour${limit}. The chats still show what they were about.`;
}

function deviceRow(/** @type {DeviceView} */ device) {
  const li = document.createElement("li");
  li.dataset.device = device.id;
  li.dataset.state = device.failing ? "failing" : "ok";
  const name = document.createElement("strong");
  name.textContent = device.id === ownId ? `${device.label} (this browser)` : device.label;
  const result = document.createElement("span");
  result.className = "push-result";
  result.textContent = lastResult(device);
  const test = document.createElement("button");
  test.type = "button";
  test.textContent = "Test";
  test.setAttribute("aria-label", `Send a test notification to ${device.label}`);
  test.addEventListener("click", () => void sendTest(device));
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Remove";
  remove.setAttribute("aria-label", `Remove ${device.label}`);
  remove.addEventListener("click", () => void removeDevice(device));
  const buttons = document.createElement("span");
  buttons.className = "push-row-actions";
  buttons.append(test, remove);
  li.append(name, result, buttons);
  return li;
}

function render() {
  const push = current;
  if (!push) return;
  const on = push.state === "on";
  const permission = pushSupported() ? Notification.permission : "unsupported";
  const mine = on && ownId !== "" && push.devices.some((d) => d.id === ownId) && permission === "granted";
  notePushActive(ownEndpoint, mine);
  block.dataset.state = !on ? "off" : mine ? "subscribed" : permission;
  if (!on) {
    stateLine.textContent =
      push.reason === "not_configured"
        ? "Off on this deployment: it has no VAPID keys. The operator sets VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT (docs/notifications.md)."
        : `Off on this deployment: ${push.problem ?? "its VAPID keys are not usable"} (docs/notifications.md).`;
  } else if (permission === "unsupported") stateLine.textContent = "This browser cannot receive push notifications.";
  else if (permission === "denied") stateLine.textContent = DENIED;
  else if (mine) stateLine.textContent = "This browser is told when a chat needs you and none of your tabs on it is visible.";
  else stateLine.textContent = "Get a notification on this browser when a chat needs you and none of your tabs on it is visible.";
  enable.hidden = !on || mine || permission === "denied" || permission === "unsupported";
  disable.hidden = !mine;
  /** @type {HTMLElement} */ (detail.parentElement).hidden = !on;
  detail.checked = push.detail === "full";
  droppedLine.hidden = !droppedNote(push);
  droppedLine.textContent = droppedNote(push);
  list.replaceChildren(...push.devices.map(deviceRow));
  list.hidden = push.devices.length === 0;
}

/** Reads GET /api/push and this browser's subscription, and draws the block. */
export async function loadPush() {
  const answer = await ask("/api/push");
  if (!answer.ok) {
    stateLine.textContent = `Could not read your notification settings: ${describeError(answer.status, answer.data)}`;
    return;
  }
  const subscription = await currentSubscription().catch(() => null);
  ownEndpoint = subscription?.endpoint ?? "";
  ownId = subscription ? await deviceIdOf(subscription.endpoint) : "";
  current = answer.data;
  render();
}

enable.addEventListener("click", async () => {
  if (!current?.publicKey) return;
  enable.disabled = true;
  say("");
  try {
    const result = await turnOn(current.publicKey);
    if (result.ok) say("Notifications are on for this browser.");
    else if (result.reason === "denied") say(DENIED);
    else if (result.reason === "dismissed") say("Notifications were not allowed: press the button again to be asked again.");
    else say(`This browser could not be subscribed: ${result.message ?? "its push service refused"}.`);
  } catch (error) {
    say(`This browser could not be subscribed: ${error instanceof Error ? error.message : String(error)}.`);
  } finally {
    enable.disabled = false;
  }
  await loadPush();
  // The focus stays in the block: on the button that now shows, else the state line's group.
  if (!disable.hidden) disable.focus();
});

disable.addEventListener("click", async () => {
  if (!ownId) return;
  const answer = await turnOff(ownId).catch(() => ({ ok: false, status: 0, data: null }));
  say(answer.ok || answer.status === 404 ? "Notifications are off for this browser." : describeError(answer.status, answer.data));
  await loadPush();
  if (!enable.hidden) enable.focus();
});

detail.addEventListener("change", async () => {
  const wanted = detail.checked ? "full" : "minimal";
  const answer = await ask("/api/push", { method: "PATCH", body: { detail: wanted } });
  if (!answer.ok) {
    detail.checked = !detail.checked;
    say(describeError(answer.status, answer.data));
    return;
  }
  if (current) current.detail = wanted;
  say(wanted === "full" ? "Notifications name the chat, the server and the tool." : "Notifications say only that a chat needs you.");
});

async function sendTest(/** @type {DeviceView} */ device) {
  say(`Sending a test notification to ${device.label}…`);
  const answer = await ask(`/api/push/devices/${encodeURIComponent(device.id)}/test`, { method: "POST" });
  if (!answer.ok) say(describeError(answer.status, answer.data));
  else if (answer.data?.outcome === "delivered") say(`Sent: ${device.label} should show a test notification.`);
  else if (answer.data?.outcome === "removed") say(`${device.label} is gone (its push service no longer knows it): removed from the list.`);
  else say(`${device.label}'s push service refused the test: it is marked failing.`);
  await loadPush();
}

async function removeDevice(/** @type {DeviceView} */ device) {
  const answer =
    device.id === ownId ? await turnOff(device.id).catch(() => null) : await ask(`/api/push/devices/${encodeURIComponent(device.id)}`, { method: "DELETE" });
  say(answer?.ok ? `${device.label} removed: it gets no more notifications.` : describeError(answer?.status ?? 0, answer?.data));
  await loadPush();
  // The removed row's button is gone: the focus goes to the block's heading area, not the page's top.
  (list.querySelector("button") ?? (enable.hidden ? disable : enable)).focus();
}

/**
 * Puts the block into "This browser"; it is read each time it is opened.
 * @param {{ open: (session: string) => void }} hooks `open`: shows a chat (a notification's tap in an open tab)
 */
export function setupPushSettings({ open }) {
  browserSettings().append(block);
  block.addEventListener("toggle", () => {
    if (block.open) void loadPush();
  });
  onOpenChat(open);
}
