// The tab says what it holds and when it needs the user: its title is the open chat's
// ("Trip plan · edgehost"), and while the tab is hidden each approval or question that
// waits, and each turn of LONG_TURN_MS or more that ends, adds to a count in front of it
// ("(2) Trip plan · edgehost") and, if the user turned them on, shows a browser
// notification. Permission is asked only from the user's click on "Notify me" (the
// sidebar's "This browser" section), never by itself. The count goes when the tab is seen.
// A browser that gets push notifications (notify/push-device.js) is told once, by the push:
// the tab then only counts, and its tags are the push's (src/push/notice.ts) so even a
// notification shown both ways replaces the other rather than stacking.
import { browserSettings } from "./theme.js";
import { state, subscribe } from "./state.js";
import { pushActive } from "../notify/push-device.js";

/** A turn at least this long that ends while the tab is hidden is worth a notification. */
export const LONG_TURN_MS = 3_000;

let waiting = 0;
/** @type {number | null} */
let turnStarted = null;

function chatTitle() {
  if (!state.active || !state.sessionId) return "edgehost";
  const title = state.sessions.find((s) => s.id === state.sessionId)?.title?.trim();
  return `${title || "New chat"} · edgehost`;
}

function showTitle() {
  document.title = `${waiting > 0 ? `(${waiting}) ` : ""}${chatTitle()}`;
}

subscribe(["sessions", "sessionId", "active"], showTitle);

const supported = () => typeof Notification === "function";

/** Something needs the user: counted in the title and notified, only while the tab is hidden. */
function call(/** @type {string} */ body, /** @type {string} */ tag) {
  if (document.visibilityState !== "hidden") return;
  waiting++;
  if (!supported() || Notification.permission !== "granted") return showTitle();
  // The count shows once the notification is decided, so the two never disagree for a reader of the title.
  void notifyUnlessPushed(body, tag).finally(showTitle);
}

/** The tab's own notification, unless this browser is a push device (the push says it: no double alert). */
async function notifyUnlessPushed(/** @type {string} */ body, /** @type {string} */ tag) {
  if (await pushActive().catch(() => false)) return;
  try {
    const notification = new Notification(chatTitle(), { body, tag });
    notification.addEventListener("click", () => {
      window.focus();
      notification.close();
    });
  } catch {
    // Some browsers allow notifications only from a service worker: the title still counts.
  }
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && waiting > 0) {
    waiting = 0;
    showTitle();
  }
});

/**
 * Hears every frame of the session (frames.js): approvals and questions that wait, and the
 * end of a long turn.
 * @param {import("./types").ServerMessage} message
 */
export function noteFrame(message) {
  switch (message.type) {
    case "approval_request":
      call(
        message.kind === "sampling" ? `${message.server} asks the model to answer: allow it?` : `Allow ${message.server}.${message.tool}?`,
        `approval:${message.callId}`,
      );
      break;
    case "elicitation_request":
      call(`${message.server} asks: ${message.message}`, `question:${message.requestId}`);
      break;
    case "turn_start":
      turnStarted = Date.now();
      break;
    case "turn_end": {
      const long = turnStarted !== null && Date.now() - turnStarted >= LONG_TURN_MS;
      turnStarted = null;
      if (long) call(message.reason === "error" ? "The answer ended with an error." : "The answer is ready.", `turn_done:${message.turnId}`);
      break;
    }
  }
}

// "Notify me": asks for permission on the click, and says what the browser allows.
const settings = browserSettings();
const row = document.createElement("div");
row.className = "setting";
const label = document.createElement("span");
label.id = "notify-state";
const button = document.createElement("button");
button.type = "button";
button.id = "notify-me";
button.textContent = "Notify me";
button.title = "Show a notification when an approval or question waits, or a long answer ends, while this tab is hidden";
row.append(label, button);
settings.append(row);

function showPermission() {
  const permission = supported() ? Notification.permission : "unsupported";
  label.textContent =
    permission === "granted"
      ? "Notifications: on"
      : permission === "denied"
        ? "Notifications: blocked in the browser"
        : permission === "unsupported"
          ? "Notifications: not in this browser"
          : "Notifications: off";
  button.hidden = permission !== "default";
}

button.addEventListener("click", async () => {
  if (!supported()) return;
  await Notification.requestPermission();
  showPermission();
});
showPermission();
