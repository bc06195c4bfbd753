// The open session's one WebSocket: opened for state.sessionId, reconnected with
// backoff (history is replayed on reconnect), frames parsed and handed on. When it
// closes, what the page showed may no longer be true: the turn ends, the server
// panel greys out, open questions close (the server asks again), and a message sent
// but not echoed is queued again (the history on reconnect tells whether it arrived).
import { showPending } from "../chat/chat-view.js";
import { queuedHere, requeue, state, update } from "./state.js";

/**
 * A socket not open by then is given up and tried again. Something in front of the Worker can
 * hold an upgrade and never answer it: wrangler dev's proxy does, for a request it queued again
 * while the Worker reloaded, until another request comes in. Generous: a cold start under load
 * takes seconds, and a try given up too soon is only tried again.
 */
const OPEN_TIMEOUT_MS = 10_000;
/** Longest wait between tries while the page is shown: a Worker that is back is reached within this. */
const SHOWN_MAX_DELAY_MS = 2_000;
/** Hidden, a little longer; the page tries again at once when shown, and when the network comes back. */
const HIDDEN_MAX_DELAY_MS = 5_000;
/** The owner removed this person from the chat (src/session/people/members.ts REMOVED_CLOSE): never tried again. */
const REMOVED_CLOSE = 4403;

/** @typedef {import("./types").ServerMessage} ServerMessage */
/** @typedef {import("./types").ClientMessage} ClientMessage */

/**
 * `made`: a socket was just asked for (the page's time to fetch what it needs next, while the socket opens).
 * @param {{ onFrame: (message: ServerMessage) => void, onClosed: () => void, refusedTwice: () => void, removed: (sessionId: string) => void, opened?: () => void, made?: () => void }} hooks
 */
export function createConnection(hooks) {
  /** @type {WebSocket | null} */
  let socket = null;
  let retries = 0;
  /** Sockets in a row that closed without ever opening: refused, or the Worker is down. */
  let failedOpens = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retryTimer;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let openTimer;

  const isOpen = () => socket?.readyState === WebSocket.OPEN;
  /** @param {string} text @param {PageConnState} conn */
  const setConn = (text, conn) => update({ conn: { text, state: conn } });

  /**
   * Closes the socket for good (no retry). `code`: why, for the session to hear (sessions.js
   * closes a chat it leaves unused with LEFT_UNUSED_CLOSE as the page goes).
   * @param {number} [code] @param {string} [reason]
   */
  function detach(code, reason) {
    clearTimeout(retryTimer);
    clearTimeout(openTimer);
    if (!socket) return;
    socket.onclose = null;
    socket.onmessage = null;
    socket.close(code, reason);
    socket = null;
  }

  function connect() {
    detach();
    if (!state.active || !state.sessionId) return;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/sessions/${encodeURIComponent(state.sessionId)}/ws`;
    const ws = new WebSocket(url);
    socket = ws;
    hooks.made?.();
    let opened = false;
    setConn("connecting…", "connecting");
    // Closing a socket that is still connecting fails it: its onclose below retries.
    openTimer = setTimeout(() => ws.close(), OPEN_TIMEOUT_MS);
    ws.onopen = () => {
      clearTimeout(openTimer);
      opened = true;
      retries = 0;
      failedOpens = 0;
      setConn("connected", "open");
      hooks.opened?.();
      // A socket counts as visible until it says otherwise: only a hidden page says so on open (docs/notifications.md).
      if (document.hidden) ws.send(JSON.stringify({ type: "visibility", visible: false }));
    };
    ws.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      hooks.onFrame(message);
    };
    ws.onclose = (event) => {
      if (socket !== ws) return;
      clearTimeout(openTimer);
      update({ turnId: null, busyNote: false, live: false });
      hooks.onClosed();
      // Removed from a shared chat: a retry would only be refused (404), so none is made.
      if (event.code === REMOVED_CLOSE) {
        socket = null;
        update({ inFlight: null });
        setConn("removed from this chat", "closed");
        if (state.sessionId) hooks.removed(state.sessionId);
        return;
      }
      const sent = state.inFlight;
      if (sent) {
        update({ inFlight: null });
        requeue({ text: sent.text, sessionId: sent.sessionId, sent: true });
        showPending(queuedHere().map((m) => m.text));
      }
      if (!opened) failedOpens += 1;
      // Backoff: 0.5 s, 1 s, 2 s, then every 2 s while the page is shown (5 s hidden).
      const delay = Math.min(document.hidden ? HIDDEN_MAX_DELAY_MS : SHOWN_MAX_DELAY_MS, 500 * 2 ** retries++);
      setConn(`disconnected: retrying in ${Math.ceil(delay / 1000)} s`, "closed");
      retryTimer = setTimeout(connect, delay);
      // A socket refused again and again: signed out, or the session is not ours.
      if (failedOpens >= 2) hooks.refusedTwice();
    };
  }

  /** Waiting for the next try: try now instead (the page was shown again, or the network came back). */
  function retryNow() {
    if (socket?.readyState === WebSocket.CLOSED) connect();
  }
  document.addEventListener("visibilitychange", () => {
    // The chat pushes its questions to this person's devices while none of their pages on it is visible.
    if (isOpen()) socket?.send(JSON.stringify({ type: "visibility", visible: !document.hidden }));
    if (!document.hidden) retryNow();
  });
  addEventListener("online", retryNow);

  return {
    connect,
    detach,
    isOpen,
    /** Closed and waiting for its next retry (a message typed now tries at once). */
    waiting: () => socket?.readyState === WebSocket.CLOSED,
    /** @param {ClientMessage} message */
    send(message) {
      if (isOpen()) socket?.send(JSON.stringify(message));
    },
    setConn,
  };
}

/** @typedef {"connecting" | "open" | "closed"} PageConnState */
