// "Sign in" and "Sign out" for remote MCP servers that use OAuth, in the server
// panel and the My servers dialog. Signing in opens the authorization server in a
// popup (or, when popups are blocked, this tab); the popup comes back to
// /oauth/callback, which finishes the sign-in and tells this page over a
// BroadcastChannel (and postMessage to our own origin). The session reconnects the
// server itself, so its new state arrives in the next `servers` frame.
import { NetworkError, request } from "../core/api.js";
import { button } from "../core/buttons.js";

/** The popup's window name and the channel the callback page answers on (oauth-callback.js). */
export const CHANNEL = "edgehost-oauth";
/** Set in this tab before a full-page redirect, so the callback knows where to come back to. */
export const RETURN_KEY = "edgehost-oauth-return";

let sessionId = () => null;
/** name → state, from the last `servers` frame. */
let states = new Map();
let live = false;
/** Servers the user holds tokens for (GET /oauth/servers: names only). */
let signedIn = new Set();
/** name → "ready" or "auth_required", whichever it was last. */
const settled = new Map();
/** `signedIn` was read (false before sign-in, or while offline). */
let signedInRead = false;
/** name → the last sign-in problem, shown under its button. */
const notes = new Map();

/** @param {{ sessionId: () => string | null }} options */
export function setupOAuth(options) {
  sessionId = options.sessionId;
  const done = (data) => {
    if (data?.type !== "oauth-done") return;
    if (data.ok) notes.delete(data.server);
    else if (data.server) notes.set(data.server, data.message);
    void refreshSignedIn();
  };
  if ("BroadcastChannel" in window) new BroadcastChannel(CHANNEL).addEventListener("message", (event) => done(event.data));
  window.addEventListener("message", (event) => {
    if (event.origin === location.origin) done(event.data);
  });
  // Not read here: the page's first read (GET /api/bootstrap) brings it (noteSignedIn).
}

/** Which servers the user is signed in to, as a load's GET /api/bootstrap said (`oauth.signedIn`). @param {string[]} names */
export function noteSignedIn(names) {
  signedIn = new Set(names);
  signedInRead = true;
  paintAll();
}

/** A read of /oauth/servers is on its way. */
let reading = false;

async function refreshSignedIn() {
  reading = true;
  try {
    const answer = await request("/oauth/servers");
    if (answer.ok && Array.isArray(answer.data?.signedIn)) {
      signedIn = new Set(answer.data.signedIn);
      signedInRead = true;
    }
  } catch {
    // Offline: the buttons follow the states alone until the next frame.
  } finally {
    reading = false;
  }
  paintAll();
}

/** A `servers` frame (or the socket went away): the controls follow the states. */
export function noteServers(servers, up) {
  states = new Map(servers.map((s) => [s.name, s.state]));
  live = up;
  // A server that changed between ready and auth_required may have gained or lost its tokens.
  // Compared with its last such state, not the last frame's: a load's first frames take each
  // server from connecting to its state, which changes no tokens (and re-read /oauth/servers).
  // Not read yet (the load's read failed) and not being read: read now, once a socket is up
  // (before, the page is still starting: its first read brings the sign-ins).
  let changed = up && !signedInRead && !reading;
  for (const [name, state] of states) {
    if (state !== "ready" && state !== "auth_required") continue;
    if (settled.has(name) && settled.get(name) !== state) changed = true;
    settled.set(name, state);
  }
  if (changed) void refreshSignedIn();
  else paintAll();
}

/** The control for one server's row: filled in (or left empty) by its state. */
export function authControl(name) {
  const span = document.createElement("span");
  span.className = "oauth-control";
  span.dataset.oauthServer = name;
  paint(span);
  return span;
}

function paintAll() {
  for (const span of document.querySelectorAll("[data-oauth-server]")) paint(span);
}

function paint(span) {
  const name = span.dataset.oauthServer;
  const state = states.get(name);
  span.replaceChildren();
  if (!live) return;
  if (state === "auth_required") span.append(button("Sign in", `Sign in to ${name}`, () => void signIn(name, span), "sign-in primary"));
  else if (signedIn.has(name)) span.append(button("Sign out", `Sign out of ${name}`, () => void signOut(name, span), "sign-out"));
  const note = notes.get(name);
  if (note) {
    const small = document.createElement("small");
    small.className = "oauth-note error";
    small.textContent = note;
    span.append(small);
  }
}

const failed = (name, message) => {
  notes.set(name, message);
  paintAll();
};

async function signIn(name, span) {
  const session = sessionId();
  if (!session) return failed(name, "Open a chat first.");
  // Opened now, inside the click, so a popup blocker lets it through; pointed at the provider once we know where.
  const popup = window.open("about:blank", CHANNEL, "popup,width=520,height=700");
  for (const b of span.querySelectorAll("button")) b.disabled = true;
  let answer;
  try {
    answer = await request("/oauth/sign-in", { method: "POST", body: { server: name, session } });
  } catch (error) {
    popup?.close();
    return failed(name, error instanceof NetworkError ? error.message : "The sign-in could not start.");
  }
  // Only a web address is opened from our origin (the Worker refuses others too).
  if (!answer.ok || typeof answer.data?.url !== "string" || !/^https?:\/\//i.test(answer.data.url)) {
    popup?.close();
    if (answer.data?.needed === false) return refreshSignedIn();
    return failed(name, answer.data?.error?.message ?? `The sign-in could not start (${answer.status}).`);
  }
  notes.delete(name);
  if (popup && !popup.closed) {
    popup.location.href = answer.data.url;
    paintAll();
  } else {
    // Popups blocked: this tab goes, and the callback page brings it back to the session.
    sessionStorage.setItem(RETURN_KEY, session);
    location.assign(answer.data.url);
  }
}

async function signOut(name, span) {
  for (const b of span.querySelectorAll("button")) b.disabled = true;
  try {
    const answer = await request("/oauth/sign-out", { method: "POST", body: { server: name, session: sessionId() ?? undefined } });
    if (!answer.ok) notes.set(name, answer.data?.error?.message ?? `Sign-out failed (${answer.status}).`);
  } catch (error) {
    notes.set(name, error instanceof NetworkError ? error.message : "Sign-out failed.");
  }
  await refreshSignedIn();
}
