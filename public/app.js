// The chat page: who is signed in (login form when needed), the user's sessions
// as the server lists them, one WebSocket per open session (reconnecting with
// backoff and replaying history), the composer (messages typed while
// disconnected are queued and sent on reconnect), and the wiring between
// protocol events and the views (the tokens of each turn and the session's total,
// kept per turn id). No build step, no external requests.
import { describeError, NetworkError, request, whenSignedOut } from "./api.js";
import { showAccount, showLogin, signOut, whoAmI } from "./auth.js";
import {
  clearChat,
  endStream,
  formatUsage,
  markApproval,
  setAppHooks,
  setBanner,
  showEntry,
  showPending,
  showStatus,
  showSystem,
  showUsage,
  streamText,
} from "./chat-view.js";
import { setupConsole } from "./console.js";
import { askApproval, askElicitation, closeAll, closeIfShowing, confirmAction } from "./dialogs.js";
import { forgetAppTools, showAppFor, teardownApps } from "./mcp-apps.js";
import { setupMyServers } from "./my-servers.js";
import { setupMyMachines } from "./my-machines.js";
import { setupOAuth } from "./oauth-sign-in.js";
import { renderServers, renderSessions } from "./panels.js";
import { forgetCatalog } from "./catalog.js";
import { markResourceUpdated, restoreAttachments, takeAttachments } from "./composer-attachments.js";
import { showMentions, startMention } from "./composer-mentions.js";
import { hidePicker, pickerKey } from "./composer-picker.js";
import { showPrompts, slashCommand } from "./composer-prompts.js";

const $ = (id) => document.getElementById(id);
const input = $("composer-input");

/** Signed in and showing the chat (false while the login form is up). */
let active = false;
let me = null;
/** The user's sessions, newest first, as GET /api/sessions lists them. */
let sessionList = [];
let sessionId = null;
let socket = null;
let retries = 0;
/** Sockets in a row that closed without ever opening: refused, or the Worker is down. */
let failedOpens = 0;
let retryTimer = null;
let checking = false;
let turnId = null;
let servers = [];
const approvals = [];
let approving = false;
/** Messages typed while disconnected: { text, sessionId }, sent in order on reconnect. */
const outbox = [];
/** The message sent last and not yet echoed back as a `user` entry. */
let inFlight = null;
/** Enter was pressed during a running turn. */
let busyNote = false;
/** Model tokens of this session's turns, by turn id (the `history` frame's `usage`, then each `turn_end`). */
let usage = {};

setAppHooks({ finished: (card, call) => void showAppFor(card, sessionId, call), clearing: teardownApps });

const isOpen = () => socket?.readyState === WebSocket.OPEN;
const phone = () => matchMedia("(max-width: 760px)").matches;

function setConn(text, state) {
  $("conn-text").textContent = text;
  $("conn").dataset.state = state;
  $("conn").title = text;
}

function setTurn(id) {
  turnId = id;
  $("send").hidden = Boolean(id);
  $("stop").hidden = !id;
  if (!id) busyNote = false;
  updateNote();
}

/** The session's total tokens, in the sidebar (hidden until a turn used some). */
function renderUsageTotal() {
  const turns = Object.values(usage);
  const total = { inputTokens: 0, outputTokens: 0 };
  for (const u of turns) {
    total.inputTokens += Number(u?.inputTokens) || 0;
    total.outputTokens += Number(u?.outputTokens) || 0;
  }
  const el = $("usage-total");
  el.hidden = total.inputTokens + total.outputTokens === 0;
  el.querySelector(".figure").textContent = formatUsage(total);
  el.title = `Model tokens of this session's ${turns.length} ${turns.length === 1 ? "turn" : "turns"}: read (in) and written (out)`;
}

function setUsage(next) {
  usage = next;
  renderUsageTotal();
}

function showAlert(text) {
  $("alert-text").textContent = text;
  $("alert").hidden = !text;
}

// ---- the composer and the outbox ----

function queuedHere() {
  return outbox.filter((m) => m.sessionId === sessionId);
}

function updateNote() {
  const queued = queuedHere().length;
  const what = queued === 1 ? "your message" : `${queued} messages`;
  let text = "";
  if (queued > 0) text = isOpen() ? `Queued: ${what} will be sent when the running turn ends.` : `Not connected: ${what} will send when reconnected.`;
  else if (busyNote && turnId) text = "A turn is running — Stop it or wait.";
  const note = $("composer-note");
  const shown = !note.hidden;
  note.textContent = text;
  note.hidden = !text;
  // The note takes room from the messages: keep the last one in view.
  if (shown !== Boolean(text)) $("messages").scrollTop = $("messages").scrollHeight;
}

function send(message) {
  if (isOpen()) socket.send(JSON.stringify(message));
}

/** `message` with the chips taken from the box, as the frame names them ({server, uri}). */
const withAttachments = (message, taken) => (taken.length > 0 ? { ...message, attachments: taken.map(({ server, uri }) => ({ server, uri })) } : message);

function sendMessage(text, queued, taken = []) {
  inFlight = { text, queued, sessionId, taken };
  send(withAttachments({ type: "message", text }, taken));
}

/** A `/` prompt chosen in the box starts a turn (with the resources attached meanwhile). */
function startPrompt(prompt) {
  if (turnId || inFlight || !isOpen()) {
    busyNote = true;
    updateNote();
    return;
  }
  const taken = takeAttachments();
  inFlight = { text: "", queued: false, sessionId, taken, prompt: true };
  send(withAttachments({ type: "prompt", ...prompt }, taken));
}

/** Sends the next queued message of this session once connected and idle. */
function flushOutbox() {
  if (!isOpen() || turnId || inFlight) return;
  const index = outbox.findIndex((m) => m.sessionId === sessionId);
  if (index < 0) return;
  const [next] = outbox.splice(index, 1);
  showPending(queuedHere().map((m) => m.text));
  sendMessage(next.text, true, next.taken);
  updateNote();
}

/** The server refused the message just sent: queue it again or put it back in the box. */
function rejected(message) {
  const { text, queued, taken } = inFlight;
  inFlight = null;
  if (message.code === "turn_in_progress" && queued) {
    outbox.unshift({ text, sessionId, taken });
    showPending(queuedHere().map((m) => m.text));
  } else {
    restoreAttachments(taken);
    if (!input.value.trim()) input.value = text;
    if (message.code === "turn_in_progress") busyNote = true;
    else showSystem(message.message, "error");
  }
  updateNote();
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || !sessionId) return;
  if (turnId || inFlight) {
    // One turn at a time: the text stays in the box.
    busyNote = true;
    updateNote();
    return;
  }
  input.value = "";
  hidePicker();
  const taken = takeAttachments();
  if (!isOpen()) {
    outbox.push({ text, sessionId, taken });
    showPending(queuedHere().map((m) => m.text));
    updateNote();
    // Waiting for the next retry: try now (the backoff goes on if it fails).
    if (active && socket?.readyState === WebSocket.CLOSED) connect();
    return;
  }
  sendMessage(text, false, taken);
});
// The `@` resource picker and the `/` prompt list (before the box's own keys: Enter chooses while a list shows).
input.addEventListener("keydown", (event) => pickerKey(event), { capture: true });
$("attach").addEventListener("click", startMention);
input.addEventListener("input", () => {
  if (slashCommand() !== null) void showPrompts(sessionId, startPrompt);
  else void showMentions(sessionId, (text) => showSystem(text, "error"));
});
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
  if (event.key === "Escape" && turnId) send({ type: "cancel", turnId });
});
$("stop").addEventListener("click", () => send({ type: "cancel", turnId }));

// ---- the WebSocket ----

function detachSocket() {
  clearTimeout(retryTimer);
  if (socket) {
    socket.onclose = null;
    socket.onmessage = null;
    socket.close();
    socket = null;
  }
}

function connect() {
  detachSocket();
  if (!active || !sessionId) return;
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/sessions/${encodeURIComponent(sessionId)}/ws`;
  const ws = new WebSocket(url);
  socket = ws;
  let opened = false;
  setConn("connecting…", "connecting");
  ws.onopen = () => {
    opened = true;
    retries = 0;
    failedOpens = 0;
    setConn("connected", "open");
    updateNote();
  };
  ws.onmessage = (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    handle(message);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    setTurn(null);
    // What the panel showed may no longer be true: grey it out until the next `servers`.
    showServers(servers, false);
    dropOpenQuestions();
    if (inFlight) {
      // Sent but not confirmed: keep it; the history on reconnect tells whether it arrived.
      outbox.unshift({ text: inFlight.text, sessionId: inFlight.sessionId, sent: true });
      inFlight = null;
      showPending(queuedHere().map((m) => m.text));
    }
    if (!opened) failedOpens += 1;
    // Backoff: 0.5 s, 1 s, 2 s … capped at 5 s; history is replayed on reconnect.
    const delay = Math.min(5_000, 500 * 2 ** retries++);
    setConn(`disconnected: retrying in ${Math.ceil(delay / 1000)} s`, "closed");
    updateNote();
    retryTimer = setTimeout(connect, delay);
    // A socket refused again and again: signed out, or the session is not ours.
    if (failedOpens >= 2) void checkAccess();
  };
}

async function checkAccess() {
  if (checking || !active) return;
  checking = true;
  try {
    const who = await whoAmI();
    if (!active) return;
    if (who.state === "signed-out") return signedOut("Your sign-in has ended. Sign in again.");
    if (who.state !== "signed-in" || !sessionId) return;
    const id = sessionId;
    const answer = await request(`/sessions/${encodeURIComponent(id)}/history`);
    if (answer.status === 404 && id === sessionId) {
      showAlert("That session is not available: it was deleted, or it is not yours.");
      sessionList = sessionList.filter((s) => s.id !== id);
      await openFirst();
    }
  } catch {
    // Offline: keep retrying with backoff.
  } finally {
    checking = false;
  }
}

/** Approval and elicitation dialogs of the chat end with the socket; the server asks again on reconnect. */
function dropOpenQuestions() {
  approvals.length = 0;
  for (const dialog of document.querySelectorAll("dialog[open]")) {
    if (dialog.id === "confirm-dialog" || dialog.id === "my-servers-dialog" || dialog.dataset.callId === "console") continue;
    dialog.close("handled");
  }
}

function handle(message) {
  switch (message.type) {
    case "connection":
      $("model").textContent = message.model ? `${message.model.provider} · ${message.model.model}` : "no model";
      setBanner(message.notice);
      break;
    case "history": {
      clearChat();
      for (const entry of message.entries) showEntry(entry);
      setUsage({ ...(message.usage ?? {}) });
      for (const [turn, used] of Object.entries(usage)) showUsage(turn, used);
      // A message whose socket died before its echo may have arrived after all.
      const users = message.entries.filter((e) => e.kind === "user");
      const last = users[users.length - 1];
      const first = outbox.findIndex((m) => m.sessionId === sessionId);
      if (last && first >= 0 && outbox[first].sent && last.text === outbox[first].text) outbox.splice(first, 1);
      showPending(queuedHere().map((m) => m.text));
      flushOutbox();
      break;
    }
    case "entry":
      showEntry(message.entry);
      if (message.entry.kind === "user") {
        if (inFlight && (inFlight.prompt ? Boolean(message.entry.prompt) : inFlight.text === message.entry.text)) inFlight = null;
        refreshSessionsSoon();
      }
      break;
    case "text":
      streamText(message);
      break;
    case "status":
      showStatus(message);
      break;
    case "turn_start":
      setTurn(message.turnId);
      break;
    case "turn_end":
      endStream();
      if (message.usage && message.usage.inputTokens + message.usage.outputTokens > 0) {
        setUsage({ ...usage, [message.turnId]: message.usage });
        showUsage(message.turnId, message.usage);
      }
      setTurn(null);
      refreshSessionsSoon();
      flushOutbox();
      break;
    case "resource_updated":
      markResourceUpdated(message.server, message.uri);
      break;
    case "servers":
      forgetCatalog();
      servers = message.servers;
      forgetAppTools();
      showServers(servers, true);
      break;
    case "approval_request":
      markApproval(message.callId, true);
      approvals.push(message);
      nextApproval();
      break;
    case "approval_resolved": {
      markApproval(message.callId, false);
      // Answered elsewhere (another tab): not asked here any more.
      const waiting = approvals.findIndex((a) => a.callId === message.callId);
      if (waiting >= 0) approvals.splice(waiting, 1);
      closeIfShowing(message.callId, "handled");
      break;
    }
    case "elicitation_resolved":
      closeIfShowing(message.requestId, "handled");
      break;
    case "elicitation_request":
      askElicitation(message).then(({ action, content }) => {
        if (action !== "handled") send({ type: "elicitation_response", requestId: message.requestId, action, content });
      });
      break;
    case "error":
      // An error outside any turn while a message waits for its echo: the server did not take it
      // (turn_in_progress, rate_limited, budget_exhausted, …); it is put back, never lost.
      if (inFlight && !message.turnId) rejected(message);
      else showSystem(message.message, "error", message.turnId);
      break;
  }
}

async function nextApproval() {
  if (approving) return;
  const request = approvals.shift();
  if (!request) return;
  approving = true;
  const answer = await askApproval(request);
  if (answer === "approve" || answer === "always" || answer === "deny") {
    send({ type: "approval", callId: request.callId, approved: answer !== "deny", remember: answer === "always" });
  }
  approving = false;
  nextApproval();
}

/** The server panel and the My servers dialog follow the same list (`live`: the socket is up). */
function showServers(list, live) {
  renderServers(list, toggleServer, { live });
  myServers.update(list, live);
}

function toggleServer(name, enabled) {
  const chosen = servers.filter((s) => (s.name === name ? enabled : s.enabled)).map((s) => s.name);
  send({ type: "set_servers", enabled: chosen });
}

// ---- sessions ----

function renderSessionList() {
  const list = [...sessionList];
  if (sessionId && !list.some((s) => s.id === sessionId)) list.unshift({ id: sessionId, title: null });
  renderSessions(list, sessionId, { onSwitch: openSession, onDelete: deleteSession });
}

/** Reads the user's sessions from the server; false when it gave no list. */
async function loadSessions() {
  let listed = false;
  try {
    const answer = await request("/api/sessions");
    if (answer.ok && Array.isArray(answer.data?.sessions)) {
      sessionList = answer.data.sessions;
      listed = true;
    }
  } catch {
    // Offline: keep the list we have.
  }
  if (active) renderSessionList();
  return listed;
}

let refreshTimer = null;
function refreshSessionsSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => void loadSessions(), 150);
}

function openSession(id) {
  if (!active) return;
  sessionId = id;
  history.replaceState(null, "", `#s=${encodeURIComponent(id)}`);
  renderSessionList();
  setMenu(false);
  setTurn(null);
  inFlight = null;
  clearChat();
  setUsage({});
  showPending(queuedHere().map((m) => m.text));
  updateNote();
  connect();
}

async function openFirst() {
  if (sessionList[0]) openSession(sessionList[0].id);
  else await newSession();
}

async function newSession() {
  try {
    const answer = await request("/sessions", { method: "POST", body: {} });
    if (!answer.ok || typeof answer.data?.id !== "string") {
      showAlert(`Could not start a new session: ${describeError(answer.status, answer.data)}`);
      return;
    }
    sessionList = [{ id: answer.data.id, title: null, lastActivity: Date.now() }, ...sessionList.filter((s) => s.id !== answer.data.id)];
    openSession(answer.data.id);
    void loadSessions();
    input.focus();
  } catch (error) {
    showAlert(error instanceof NetworkError ? error.message : "Could not start a new session.");
  }
}

async function deleteSession(id, title) {
  const confirmed = await confirmAction({
    title: "Delete this session?",
    text: `“${title}” and its whole history will be deleted. This cannot be undone.`,
    confirm: "Delete",
  });
  if (!confirmed) return;
  if (id === sessionId) detachSocket();
  try {
    const answer = await request(`/sessions/${encodeURIComponent(id)}`, { method: "DELETE", body: {} });
    if (!answer.ok && answer.status !== 404) {
      showAlert(`Could not delete the session: ${describeError(answer.status, answer.data)}`);
      if (id === sessionId) connect();
      return;
    }
  } catch (error) {
    showAlert(error instanceof NetworkError ? error.message : "Could not delete the session.");
    if (id === sessionId) connect();
    return;
  }
  sessionList = sessionList.filter((s) => s.id !== id);
  for (let i = outbox.length - 1; i >= 0; i--) if (outbox[i].sessionId === id) outbox.splice(i, 1);
  if (id === sessionId) await openFirst();
  else renderSessionList();
  void loadSessions();
  input.focus();
}

$("new-session").addEventListener("click", () => void newSession());

// ---- menus, the console, sign-in ----

function setMenu(open) {
  document.body.classList.toggle("menu-open", open);
  $("menu-toggle").setAttribute("aria-expanded", String(open));
  $("scrim").hidden = !open;
  if (open && phone()) setConsole(false, { focus: false });
}

const consolePanel = setupConsole();
const myServers = setupMyServers({ sessionId: () => sessionId });
setupMyMachines();
setupOAuth({ sessionId: () => sessionId });
function setConsole(open, { focus = true } = {}) {
  const wasOpen = !$("console").hidden;
  $("console").hidden = !open;
  $("console-toggle").setAttribute("aria-expanded", String(open));
  if (open) {
    if (phone()) setMenu(false);
    if (!wasOpen) void consolePanel.load();
    if (focus) $("console-tool").focus();
  } else if (wasOpen && focus) $("console-toggle").focus();
}

$("menu-toggle").addEventListener("click", () => setMenu(!document.body.classList.contains("menu-open")));
$("scrim").addEventListener("click", () => setMenu(false));
$("console-toggle").addEventListener("click", () => setConsole($("console").hidden));
$("console-close").addEventListener("click", () => setConsole(false));
$("alert-close").addEventListener("click", () => showAlert(""));
// A tap outside the open sidebar closes it (not one in a dialog opened from it).
document.addEventListener("pointerdown", (event) => {
  if (!document.body.classList.contains("menu-open")) return;
  if ($("sidebar").contains(event.target) || $("menu-toggle").contains(event.target) || event.target.closest?.("dialog")) return;
  setMenu(false);
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || event.defaultPrevented || document.querySelector("dialog[open]")) return;
  const focus = document.activeElement;
  if (!$("console").hidden && ($("console").contains(focus) || focus === document.body || focus === $("console-toggle") || phone())) {
    event.preventDefault();
    setConsole(false);
  } else if (document.body.classList.contains("menu-open")) {
    event.preventDefault();
    setMenu(false);
    $("menu-toggle").focus();
  }
});

/** Forgets everything of the signed-in user (sign-out, or the sign-in ended). */
function teardown({ forgetSession = false } = {}) {
  active = false;
  detachSocket();
  closeAll();
  clearChat();
  setBanner("");
  showAlert("");
  setConsole(false, { focus: false });
  setMenu(false);
  outbox.length = 0;
  inFlight = null;
  sessionList = [];
  servers = [];
  setUsage({});
  setTurn(null);
  renderSessions([], null, { onSwitch: openSession, onDelete: deleteSession });
  showServers([], false);
  input.value = "";
  if (forgetSession) {
    sessionId = null;
    history.replaceState(null, "", location.pathname + location.search);
  }
}

function signedOut(message) {
  if (!active) return;
  const mode = me?.authMode === "access" ? "access" : "token";
  teardown();
  void showLogin(message, mode).then(start);
}

async function onSignOut(everywhere = false) {
  const mode = me?.authMode;
  teardown({ forgetSession: true });
  await signOut({ everywhere });
  if (mode === "access") {
    // Cloudflare Access ends its own session on this path of the same origin.
    location.assign("/cdn-cgi/access/logout");
    return;
  }
  void showLogin().then(start);
}

whenSignedOut(() => signedOut("Your sign-in has ended. Sign in again."));

let startRetries = 0;

async function start() {
  const who = await whoAmI();
  if (who.state === "unknown" && who.reason === "offline") {
    // The Worker cannot be reached at all: say so and try again, with backoff.
    $("login").hidden = true;
    $("app").hidden = false;
    const delay = Math.min(5_000, 500 * 2 ** startRetries++);
    setConn(`cannot reach edgehost: retrying in ${Math.ceil(delay / 1000)} s`, "closed");
    setTimeout(start, delay);
    return;
  }
  startRetries = 0;
  if (who.state === "signed-out") {
    await showLogin(who.authMode === "token" ? "" : (who.message ?? "Sign-in is not available."), who.authMode);
    return start();
  }
  me = who;
  active = true;
  $("login").hidden = true;
  $("app").hidden = false;
  showAccount(who, (everywhere) => void onSignOut(everywhere));
  const listed = await loadSessions();
  let wanted = new URLSearchParams(location.hash.slice(1)).get("s");
  if (wanted && listed && !sessionList.some((s) => s.id === wanted)) {
    // Not in the user's list: open it only if the server says it is theirs.
    let answer = null;
    try {
      answer = await request(`/sessions/${encodeURIComponent(wanted)}/history`);
    } catch {
      // Offline: try it; the socket's retries will tell.
    }
    if (answer && !answer.ok) {
      showAlert("That session is not available: it was deleted, or it is not yours.");
      wanted = null;
    }
  }
  if (wanted) openSession(wanted);
  else await openFirst();
}

void start();
