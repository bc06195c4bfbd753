// The chat page: one WebSocket per open session (reconnecting with backoff and
// replaying history), the composer, and the wiring between protocol events and
// the views. No build step, no external requests.
import { clearChat, endStream, showEntry, showStatus, showSystem, streamText } from "./chat-view.js";
import { askApproval, askElicitation, closeIfShowing, renderServers, renderSessions, sessions, setupConsole } from "./panels.js";

const $ = (id) => document.getElementById(id);
const input = $("composer-input");
let socket = null;
let sessionId = null;
let turnId = null;
let retries = 0;
let retryTimer = null;
let servers = [];
const approvals = [];
let approving = false;

function setConn(text, state) {
  $("conn").textContent = text;
  $("conn").dataset.state = state;
}

function setTurn(id) {
  turnId = id;
  $("send").hidden = Boolean(id);
  $("stop").hidden = !id;
}

function send(message) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  clearTimeout(retryTimer);
  if (socket) {
    socket.onclose = null;
    socket.close();
  }
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/sessions/${encodeURIComponent(sessionId)}/ws`;
  const ws = new WebSocket(url);
  socket = ws;
  setConn("connecting…", "connecting");
  ws.onopen = () => {
    retries = 0;
    setConn("connected", "open");
  };
  ws.onmessage = (event) => handle(JSON.parse(event.data));
  ws.onclose = () => {
    if (socket !== ws) return;
    setTurn(null);
    // Backoff: 0.5 s, 1 s, 2 s … capped at 10 s; history is replayed on reconnect.
    const delay = Math.min(10_000, 500 * 2 ** retries++);
    setConn(`disconnected: retrying in ${Math.ceil(delay / 1000)} s`, "closed");
    retryTimer = setTimeout(connect, delay);
  };
}

function handle(message) {
  switch (message.type) {
    case "connection":
      $("model").textContent = message.model ? `${message.model.provider} · ${message.model.model}` : "no model";
      $("notice").hidden = !message.notice;
      $("notice").textContent = message.notice ?? "";
      break;
    case "history":
      clearChat();
      for (const entry of message.entries) showEntry(entry);
      break;
    case "entry":
      showEntry(message.entry);
      if (message.entry.kind === "user") {
        sessions.title(sessionId, message.entry.text);
        refreshSessions();
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
      setTurn(null);
      refreshSessions();
      break;
    case "servers":
      servers = message.servers;
      renderServers(servers, toggleServer);
      break;
    case "approval_request":
      approvals.push(message);
      nextApproval();
      break;
    case "approval_resolved":
    case "elicitation_resolved":
      closeIfShowing(message.callId ?? message.requestId, "handled");
      break;
    case "elicitation_request":
      askElicitation(message).then(({ action, content }) => {
        if (action !== "handled") send({ type: "elicitation_response", requestId: message.requestId, action, content });
      });
      break;
    case "error":
      showSystem(message.message, "error");
      break;
  }
}

async function nextApproval() {
  if (approving) return;
  const request = approvals.shift();
  if (!request) return;
  approving = true;
  const answer = await askApproval(request);
  if (answer !== "handled") send({ type: "approval", callId: request.callId, approved: answer !== "deny", remember: answer === "always" });
  approving = false;
  nextApproval();
}

function toggleServer(name, enabled) {
  const chosen = servers.filter((s) => (s.name === name ? enabled : s.enabled)).map((s) => s.name);
  send({ type: "set_servers", enabled: chosen });
}

function refreshSessions() {
  renderSessions(sessionId, { onSwitch: openSession, onDelete: deleteSession });
}

function openSession(id) {
  sessionId = id;
  if (!sessions.all().some((s) => s.id === id)) sessions.add(id);
  history.replaceState(null, "", `#s=${encodeURIComponent(id)}`);
  refreshSessions();
  setTurn(null);
  connect();
  if (!$("console").hidden) consolePanel.load();
}

async function newSession() {
  const response = await fetch("/sessions", { method: "POST" });
  const { id } = await response.json();
  sessions.add(id);
  openSession(id);
}

async function deleteSession(id) {
  await fetch(`/sessions/${encodeURIComponent(id)}`, { method: "DELETE" });
  sessions.remove(id);
  if (id === sessionId) {
    const next = sessions.all()[0];
    if (next) openSession(next.id);
    else await newSession();
  } else refreshSessions();
}

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || turnId) return;
  send({ type: "message", text });
  input.value = "";
});
input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
  if (event.key === "Escape" && turnId) send({ type: "cancel", turnId });
});
$("stop").addEventListener("click", () => send({ type: "cancel", turnId }));
$("new-session").addEventListener("click", newSession);
$("menu-toggle").addEventListener("click", () => {
  const open = document.body.classList.toggle("menu-open");
  $("menu-toggle").setAttribute("aria-expanded", String(open));
});
const consolePanel = setupConsole(() => sessionId);
$("console-toggle").addEventListener("click", () => {
  const hidden = !$("console").hidden;
  $("console").hidden = hidden;
  $("console-toggle").setAttribute("aria-expanded", String(!hidden));
  if (!hidden) consolePanel.load();
});

const fromHash = new URLSearchParams(location.hash.slice(1)).get("s");
const known = sessions.all();
if (fromHash) openSession(fromHash);
else if (known[0]) openSession(known[0].id);
else newSession();
