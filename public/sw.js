// The page's service worker (docs/notifications.md): it shows the push notifications the
// Worker sends while none of the person's tabs on a chat is visible, and answers an approval
// from the notification's Allow once / Deny through POST /push/act with the notification's
// single-use token. No fetch handler: the page's own loading is untouched. A classic script
// with no imports, served at the fixed URL /sw.js (scripts/build-page.mjs) and registered only
// when the person turns notifications on.
//
// Typed loosely on purpose: public/tsconfig.json checks the page with the DOM library, and a
// worker's global (ServiceWorkerGlobalScope) is a different one.
/** @type {any} */
const sw = self;

/** `waitUntil` only on the browser's own events: a test's synthetic event refuses it (the work still runs). */
function extend(event, promise) {
  if (event.isTrusted) event.waitUntil(promise);
  return promise;
}

sw.addEventListener("install", () => sw.skipWaiting());
sw.addEventListener("activate", (event) => extend(event, sw.clients.claim()));

/** What a payload (v1, src/push/notice.ts) looks like as a notification. Names only when the person chose to see them. */
function shown(p) {
  const where = [p.server, p.chat].filter(Boolean).join(" · ");
  switch (p.kind) {
    case "approval":
      return { title: p.tool ? `Approve ${p.tool}?` : "A chat needs your approval", body: where || "Open edgehost to answer" };
    case "question":
      return { title: p.server ? `${p.server} asks a question` : "A chat asks a question", body: p.chat || "Open edgehost to answer" };
    case "turn_done":
      return { title: "Answer ready", body: p.chat || "A chat of yours finished" };
    case "schedule_done": {
      const how = { completed: "Scheduled run done", failed: "Scheduled run failed", cancelled: "Scheduled run stopped" };
      return { title: how[p.outcome] || "Scheduled run ended", body: p.chat || "A scheduled run of yours ended" };
    }
    case "schedule_paused":
      return { title: "Schedule paused after repeated failures", body: p.chat ? `${p.chat} · Resume it under Schedules` : "Resume it under Schedules" };
    default:
      return { title: "edgehost notifications work", body: "This device will be told when a chat needs you." };
  }
}

sw.addEventListener("push", (event) => {
  /** @type {any} */
  let p = {};
  try {
    p = event.data ? event.data.json() : {};
  } catch {
    // Not ours (or damaged): shown as a plain notice, never dropped silently (browsers penalise silent pushes).
  }
  const { title, body } = shown(p);
  const live = p.kind === "approval" && p.token && (!p.expiresAt || p.expiresAt > Date.now());
  const actions = live
    ? [
        { action: "allow", title: "Allow once" },
        { action: "deny", title: "Deny" },
      ]
    : [];
  if (live && (sw.Notification?.maxActions ?? 2) >= 3) actions.push({ action: "open", title: "Open" });
  // A schedule's news has nothing to answer: its one action opens the chat (as a tap does).
  if (p.kind === "schedule_done" || p.kind === "schedule_paused") actions.push({ action: "open", title: "Open" });
  const options = {
    body,
    tag: p.tag || "edgehost",
    renotify: true,
    requireInteraction: p.kind === "approval" || p.kind === "question",
    data: { session: p.session, ref: p.ref, token: live ? p.token : undefined, tool: p.tool },
    actions,
  };
  extend(event, sw.registration.showNotification(title, options));
});

/** Answers the approval with the notification's token; the notification is replaced by the outcome. */
async function act(notification, action) {
  const { token, tool, session } = notification.data || {};
  let status = 0;
  try {
    const response = await fetch("/push/act", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, action }),
    });
    status = response.status;
  } catch {
    // Offline: said below like any other failure.
  }
  const title =
    status === 200
      ? `${action === "allow" ? "Allowed" : "Denied"}${tool ? ` · ${tool}` : ""}`
      : status === 409
        ? "Already answered"
        : "Expired — open the chat";
  await sw.registration.showNotification(title, { tag: notification.tag, data: { session }, actions: [] });
}

/** The chat in a window of this origin: an open one is told to show it (and focused), else a new one. */
async function openChat(data) {
  const session = data?.session && data.session !== "-" ? data.session : undefined;
  const windows = await sw.clients.matchAll({ type: "window", includeUncontrolled: true });
  const client = windows[0];
  if (client) {
    client.postMessage({ type: "open-chat", session, focus: data?.ref });
    return client.focus().catch(() => undefined);
  }
  return sw.clients.openWindow(session ? `/#s=${encodeURIComponent(session)}` : "/");
}

sw.addEventListener("notificationclick", (event) => {
  const { notification, action } = event;
  notification.close();
  const work = action === "allow" || action === "deny" ? act(notification, action) : openChat(notification.data);
  extend(event, work);
});

/** The id the Worker gives the device of an endpoint (src/users/push-devices.ts): SHA-256, first 8 bytes, hex. */
async function deviceIdOf(endpoint) {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(endpoint)));
  return [...hash.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The push service renewed (or dropped) this browser's subscription: subscribe again with the
 * same key and give the account the new one in place of the old (POST with `replaces`), so the
 * person's device list keeps one row for this browser. Without a session cookie the POST is
 * refused: the page then finds no device for this browser and offers "Notify me" again.
 */
async function resubscribe(event) {
  const old = event.oldSubscription;
  const key = old?.options?.applicationServerKey;
  const renewed = event.newSubscription ?? (key ? await sw.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }) : null);
  if (!renewed) return;
  const body = { subscription: renewed.toJSON(), ...(old?.endpoint ? { replaces: await deviceIdOf(old.endpoint) } : {}) };
  await fetch("/api/push/devices", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => undefined);
}

sw.addEventListener("pushsubscriptionchange", (event) => extend(event, resubscribe(event)));
