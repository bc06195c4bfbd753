// The user's sessions: listed by the server (GET /api/sessions), opened (one at a time,
// named in the address as #s=ID), started and deleted. The list is kept in state.js and
// drawn by views.js.
import { describeError, NetworkError, request } from "../core/api.js";
import { clearChat, showPending } from "../chat/chat-view.js";
import { askArguments } from "../dialogs/argument-form.js";
import { confirmAction } from "../dialogs/dialogs.js";
import { dropQueued, queuedHere, state, update } from "../core/state.js";
import { focusMessageLater } from "../chat/message-focus.js";

/** The tab's note of the new chat it left unused as it went (a reload opens it again). */
const LEFT_KEY = "edgehost.leftUnused";
/** The close code that tells the session its page left it unused (src/session/ChatSession.ts LEFT_UNUSED_CLOSE). */
const LEFT_UNUSED_CLOSE = 4000;

/**
 * @param {{ connect: () => void, detach: (code?: number, reason?: string) => void, closeMenu: () => void, focusInput: () => void, showAlert: (text: string) => void }} page
 */
export function setupSessions(page) {
  /** Reads the user's sessions from the server; false when it gave no list. */
  async function load() {
    try {
      const answer = await request("/api/sessions");
      if (answer.ok && Array.isArray(answer.data?.sessions)) {
        update({ sessions: answer.data.sessions });
        return true;
      }
    } catch {
      // Offline: keep the list we have.
    }
    return false;
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let refreshTimer;
  /** Reads the list again shortly: calls in the meantime share that one read (a busy turn never puts it off). */
  function refreshSoon() {
    if (refreshTimer !== undefined) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = undefined;
      void load();
    }, 150);
  }

  /**
   * The session this page started last, while nothing has been sent in it: left unused, it
   * is deleted, so "New" leaves no empty "New chat" entries behind. Only sessions this page
   * started: one opened from the list or an address is never deleted by leaving it.
   * @type {string | null}
   */
  let startedHere = null;

  /** The session this page started, when it is open and nothing is in it yet (history, a turn, a queued message, a title). */
  function openAndUnused() {
    const id = startedHere;
    if (!id || id !== state.sessionId) return null;
    const titled = state.sessions.find((s) => s.id === id)?.title;
    const used = titled || state.turnId || state.inFlight || queuedHere().length > 0 || document.querySelector("#messages > li:not([hidden])");
    return used ? null : id;
  }

  // A tab closed or reloaded on a new chat nothing was sent in: its socket closes saying so
  // (no request), and the session deletes itself a few seconds on unless a page comes back
  // to it. A reload does (the tab's sessionStorage says which chat it left): the same empty
  // chat opens again, with nothing deleted or created. A page kept in the back-forward cache keeps it.
  addEventListener("pagehide", (event) => {
    const id = event.persisted ? null : openAndUnused();
    if (!id) return;
    sessionStorage.setItem(LEFT_KEY, id);
    page.detach(LEFT_UNUSED_CLOSE, "left unused");
  });

  /**
   * At start: the new chat this tab left unused as it reloaded (asked once). When the address
   * names it, "reopened": it is still listed and open again, still this page's own new chat;
   * "gone": it was dropped meanwhile (the reload took longer than the session waits). When the
   * address names another chat, the left one is dropped now rather than listed until it goes.
   * @param {string | null} wanted the chat the address names
   * @returns {"reopened" | "gone" | "no"}
   */
  function reopenLeftUnused(wanted) {
    const id = sessionStorage.getItem(LEFT_KEY);
    sessionStorage.removeItem(LEFT_KEY);
    if (id && id !== wanted && state.sessions.some((s) => s.id === id)) drop(id);
    if (!id || id !== wanted) return "no";
    if (!state.sessions.some((s) => s.id === id)) return "gone";
    open(id);
    startedHere = id;
    page.focusInput();
    return "reopened";
  }

  /** Deletes a session the user left unused. @param {string | null} id */
  function drop(id) {
    if (!id) return;
    if (startedHere === id) startedHere = null;
    update({ sessions: state.sessions.filter((s) => s.id !== id) });
    // Called once the next session's socket replaced this one's: the delete closes only a detached socket.
    // The list is read again only when the delete did not take: it was taken out above (a read
    // after every drop was a second GET /api/sessions on each reload of an unused chat).
    void request(`/sessions/${encodeURIComponent(id)}`, { method: "DELETE", body: {} })
      .then((answer) => answer.ok || answer.status === 404)
      .catch(() => false)
      .then((gone) => {
        if (!gone) refreshSoon();
      });
  }

  /** `seq`: the message to show once its history is in (a search result's line). @param {string} id @param {number | null} [seq] */
  function open(id, seq) {
    if (!state.active) return;
    const left = id === state.sessionId ? null : openAndUnused();
    focusMessageLater(id, seq);
    history.replaceState(null, "", `#s=${encodeURIComponent(id)}`);
    // `live` false: the servers shown are the chat left's until this one's socket lists its own.
    update({ sessionId: id, turnId: null, busyNote: false, inFlight: null, usage: {}, usageOutside: { inputTokens: 0, outputTokens: 0 }, live: false });
    // The socket first: its handshake runs while the page is redrawn below (its frames come in later tasks, after the clearing).
    page.connect();
    page.closeMenu();
    clearChat();
    showPending(queuedHere().map((m) => m.text));
    drop(left);
  }

  /** One chat per page load is started by its socket: any later one (all deleted, or that one refused) by POST, which says why when it cannot. */
  let startedBySocket = false;

  async function openFirst() {
    const first = state.sessions[0];
    if (first) open(first.id);
    else if (!startedBySocket) startBySocket();
    else await create();
  }

  /**
   * A person with no chats gets their first one without a request of its own: the page names
   * it and the socket's route claims it (src/http/sessions.ts), one round trip less on a cold
   * load. The cap on chats cannot refuse a first one; should the socket still be refused, the
   * page finds the chat is not theirs (app.js checkAccess → lost → openFirst) and asks by POST.
   */
  function startBySocket() {
    const id = crypto.randomUUID();
    update({ sessions: [{ id, title: null, lastActivity: Date.now() }, ...state.sessions] });
    startedBySocket = true;
    open(id);
    startedHere = id;
    page.focusInput();
  }

  async function create() {
    // No session is open until the new one is: a message typed meanwhile stays in the box
    // instead of going to the session being left.
    const previous = state.sessionId;
    // A new chat nothing was sent in is left for the new one: deleted once the new one is open.
    const unused = openAndUnused();
    update({ sessionId: null });
    const back = () => {
      if (previous && !state.sessionId) update({ sessionId: previous });
    };
    try {
      const answer = await request("/sessions", { method: "POST", body: {} });
      const id = answer.data?.id;
      if (!answer.ok || typeof id !== "string") {
        back();
        page.showAlert(`Could not start a new chat: ${describeError(answer.status, answer.data)}`);
        return;
      }
      update({ sessions: [{ id, title: null, lastActivity: Date.now() }, ...state.sessions.filter((s) => s.id !== id)] });
      startedHere = null;
      open(id);
      drop(unused);
      startedHere = id;
      // Not read again: the list above is the server's plus this session (a read here was a
      // second GET /api/sessions on every first load).
      page.focusInput();
    } catch (error) {
      back();
      page.showAlert(error instanceof NetworkError ? error.message : "Could not start a new chat.");
    }
  }

  /** @param {string} id @param {string} title */
  async function remove(id, title) {
    const confirmed = await confirmAction({
      title: "Delete this chat?",
      text: `“${title}” and its whole history will be deleted. This cannot be undone.`,
      confirm: "Delete",
    });
    if (!confirmed) return;
    const isOpen = id === state.sessionId;
    if (isOpen) page.detach();
    try {
      const answer = await request(`/sessions/${encodeURIComponent(id)}`, { method: "DELETE", body: {} });
      if (!answer.ok && answer.status !== 404) {
        page.showAlert(`Could not delete the chat: ${describeError(answer.status, answer.data)}`);
        if (isOpen) page.connect();
        return;
      }
    } catch (error) {
      page.showAlert(error instanceof NetworkError ? error.message : "Could not delete the chat.");
      if (isOpen) page.connect();
      return;
    }
    update({ sessions: state.sessions.filter((s) => s.id !== id) });
    dropQueued(id);
    if (isOpen) await openFirst();
    void load();
    page.focusInput();
  }

  /** @param {string} id @param {string} title */
  async function rename(id, title) {
    const values = await askArguments({
      title: "Rename chat",
      fields: [{ name: "title", description: "1–80 characters", required: true, value: title, maxLength: 80 }],
      submitLabel: "Rename",
    });
    if (!values?.title) return;
    try {
      const answer = await request(`/sessions/${encodeURIComponent(id)}`, { method: "PATCH", body: { title: values.title } });
      if (!answer.ok) return page.showAlert(`Could not rename the chat: ${describeError(answer.status, answer.data)}`);
      update({ sessions: state.sessions.map((s) => (s.id === id ? { ...s, title: answer.data.title } : s)) });
    } catch (error) {
      page.showAlert(error instanceof NetworkError ? error.message : "Could not rename the chat.");
    }
  }

  /** Pins a session to the top of the list, or unpins it. @param {string} id @param {boolean} pinned */
  async function pin(id, pinned) {
    try {
      const answer = await request(`/sessions/${encodeURIComponent(id)}/pin`, { method: pinned ? "PUT" : "DELETE" });
      if (!answer.ok) return page.showAlert(`Could not ${pinned ? "pin" : "unpin"} the chat: ${describeError(answer.status, answer.data)}`);
      await load();
    } catch (error) {
      page.showAlert(error instanceof NetworkError ? error.message : "Could not pin the chat.");
    }
  }

  /** Deletes every session (`everything`: and the account's data), after asking. @param {boolean} everything */
  async function removeAll(everything) {
    const confirmed = await confirmAction(
      everything
        ? {
            title: "Delete all your data?",
            text: "Every chat and its history, your own servers, your sign-ins to servers and your paired machines will be deleted. This cannot be undone.",
            confirm: "Delete everything",
          }
        : { title: "Delete all chats?", text: "Every chat and its whole history will be deleted. This cannot be undone.", confirm: "Delete all" },
    );
    if (!confirmed) return;
    page.detach();
    try {
      const answer = await request(everything ? "/api/account" : "/api/sessions", { method: "DELETE", body: {} });
      if (!answer.ok) page.showAlert(`Could not delete: ${describeError(answer.status, answer.data)}`);
    } catch (error) {
      page.showAlert(error instanceof NetworkError ? error.message : "Could not delete.");
    }
    update({ sessions: [] });
    dropQueued();
    await load();
    await openFirst();
  }

  /** A session that is gone (deleted, or not the user's): forget it and open another. @param {string} id */
  async function lost(id) {
    update({ sessions: state.sessions.filter((s) => s.id !== id) });
    await openFirst();
  }

  return { load, refreshSoon, open, openFirst, create, remove, rename, pin, removeAll, lost, reopenLeftUnused };
}
