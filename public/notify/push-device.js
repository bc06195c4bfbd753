// This browser as a push notification device (docs/notifications.md): the service worker
// (/sw.js) is registered only when the person turns notifications on, never on a plain page
// load; its Web Push subscription (made with the deployment's VAPID public key) is given to
// the account (POST /api/push/devices) and taken back on "Stop". A device's id is the first
// 8 bytes of SHA-256 over its endpoint, as the Worker derives it (src/users/push-devices.ts),
// so the page knows which listed device it is without keeping anything of its own.
import { request } from "../core/api.js";

const SW_URL = "/sw.js";

/** Whether this browser can take push at all (Safari outside a home-screen app cannot). */
export function pushSupported() {
  return typeof Notification === "function" && "serviceWorker" in navigator && typeof PushManager === "function";
}

/** The page's worker registration, if one was made before (no registration is made here). */
async function existingRegistration() {
  if (!pushSupported()) return undefined;
  return navigator.serviceWorker.getRegistration("/");
}

/** This browser's current subscription, or null (none made, or the browser dropped it). */
export async function currentSubscription() {
  const registration = await existingRegistration();
  return registration ? registration.pushManager.getSubscription() : null;
}

/** The id the Worker gives the device of this endpoint. */
export async function deviceIdOf(/** @type {string} */ endpoint) {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(endpoint)));
  return [...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const fromB64url = (/** @type {string} */ text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

/** Whether a subscription was made with this public key (a deployment that changed keys needs a new one). */
function madeWith(/** @type {PushSubscription} */ subscription, /** @type {string} */ publicKey) {
  const key = subscription.options?.applicationServerKey;
  if (!key) return true;
  const a = new Uint8Array(key);
  const b = fromB64url(publicKey);
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** "Chrome on Android": enough for a person to tell their devices apart in the list. */
export function deviceLabel() {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrome\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "A browser";
  const system = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
      ? "iOS"
      : /Mac OS X/.test(ua)
        ? "macOS"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : "";
  return system ? `${browser} on ${system}` : browser;
}

/** What the account said last about this browser's device, and when (ms). */
let known = { at: 0, endpoint: "", on: false };
const KNOWN_FOR_MS = 60_000;

/**
 * Whether this browser is one of the person's push devices with notifications allowed: the
 * page's own in-tab notifications (attention.js) then stay quiet, the push says it once.
 * Asked only when something would be notified (never on the page's load): a local
 * subscription the account no longer lists (removed elsewhere, or gone) does not count.
 */
export async function pushActive() {
  if (!pushSupported() || Notification.permission !== "granted") return false;
  const subscription = await currentSubscription().catch(() => null);
  if (!subscription) return false;
  if (known.endpoint === subscription.endpoint && Date.now() - known.at < KNOWN_FOR_MS) return known.on;
  const answer = await request("/api/push").catch(() => null);
  const id = await deviceIdOf(subscription.endpoint);
  const on = Boolean(answer?.ok && answer.data?.state === "on" && answer.data.devices?.some((/** @type {{ id: string }} */ d) => d.id === id));
  known = { at: Date.now(), endpoint: subscription.endpoint, on };
  return on;
}

/** What push-settings.js just read from GET /api/push about this browser's device. */
export function notePushActive(/** @type {string} */ endpoint, /** @type {boolean} */ on) {
  known = { at: Date.now(), endpoint, on };
}

/**
 * Turns notifications on for this browser: asks permission (on the person's click), registers
 * the worker, subscribes with the deployment's key and adds the device to the account.
 * @param {string} publicKey the VAPID public key GET /api/push gave
 * @returns {Promise<{ ok: boolean, id?: string, reason?: "denied" | "dismissed" | "refused", message?: string }>} `reason` when not ok
 */
export async function turnOn(publicKey) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return { ok: false, reason: permission === "denied" ? "denied" : "dismissed" };
  const registration = await navigator.serviceWorker.register(SW_URL, { scope: "/", updateViaCache: "none" });
  await navigator.serviceWorker.ready;
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !madeWith(subscription, publicKey)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  try {
    subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64url(publicKey) });
  } catch (error) {
    return { ok: false, reason: "refused", message: error instanceof Error ? error.message : String(error) };
  }
  const answer = await request("/api/push/devices", { method: "POST", body: { subscription: subscription.toJSON(), label: deviceLabel() } });
  if (!answer.ok) return { ok: false, reason: "refused", message: answer.data?.error?.message ?? `the server answered ${answer.status}` };
  return { ok: true, id: answer.data.id };
}

/** Stops notifications on this browser: the account forgets the device, the browser its subscription. */
export async function turnOff(/** @type {string} */ id) {
  const answer = await request(`/api/push/devices/${encodeURIComponent(id)}`, { method: "DELETE" });
  const subscription = await currentSubscription();
  if (subscription && (await deviceIdOf(subscription.endpoint)) === id) await subscription.unsubscribe();
  return answer;
}

/**
 * A tap on a notification while a tab is open: the service worker asks that tab to show the
 * chat (sw.js openChat) rather than opening another window.
 * @param {(session: string) => void} open
 */
export function onOpenChat(open) {
  if (!pushSupported()) return;
  navigator.serviceWorker.startMessages();
  navigator.serviceWorker.addEventListener("message", (event) => {
    const data = event.data;
    if (event.origin && event.origin !== location.origin) return;
    if (data?.type === "open-chat" && typeof data.session === "string" && /^[\w-]{1,100}$/.test(data.session)) {
      window.focus();
      open(data.session);
    }
  });
}
