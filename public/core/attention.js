// The tab says what it holds and when it needs the user: its title is the open chat's
// ("Trip plan · edgehost"), and while the tab is hidden each approval or question that
// waits, and each turn of LONG_TURN_MS or more that ends, adds to a count in front of it
// ("(2) Trip plan · edgehost") and, if the user turned them on, shows a browser
// notification. Permission is asked only from the user's click on "Notify me" (the
// sidebar's "This browser" section), never by itself. The count goes when the tab is seen.
import { browserSettings } from "./theme.js";
import { state, subscribe } from "./state.js";

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
  showTitle();
  if (!supported() || Notification.permission !== "granted") return;
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
      call(message.kind === "sampling" ? `${message.server} asks the model to answer: allow it?` : `Allow ${message.server}.${message.tool}?`, message.callId);
      break;
    case "elicitation_request":
      call(`${message.server} asks: ${message.message}`, message.requestId);
      break;
    case "turn_start":
      turnStarted = Date.now();
      break;
    case "turn_end": {
      const long = turnStarted !== null && Date.now() - turnStarted >= LONG_TURN_MS;
      turnStarted = null;
      if (long) call(message.reason === "error" ? "The answer ended with an error." : "The answer is ready.", `turn-${message.turnId}`);
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
