// The parts of the page drawn from state.js alone, each redrawn when what it shows
// changes: the connection indicator, Send and Stop, the note under the composer, the
// session's token total, the session list, the server panel (and My servers' copy of
// it) and the page-wide alert.
import { formatUsage } from "../chat/chat-view.js";
import { byId } from "./dom.js";
import { scrollToEnd } from "../chat/follow.js";
import { renderServers } from "./panels.js";
import { renderSessions } from "../sessions/session-list.js";
import { queuedHere, state, subscribe, update } from "./state.js";

/**
 * @param {{
 *   onSwitch: (id: string) => void,
 *   onDelete: (id: string, title: string) => void,
 *   onRename: (id: string, title: string) => void,
 *   onPin: (id: string, pinned: boolean) => void,
 *   onShare?: (id: string, title: string) => void,
 *   onPeople?: (id: string) => void,
 *   onToggleServer: (name: string, enabled: boolean) => void,
 *   myServers: { update(servers: import("./types").SessionServer[], live: boolean): void },
 * }} hooks
 */
export function setupViews(hooks) {
  subscribe(["conn"], () => {
    const { text, state: conn } = state.conn;
    byId("conn-text").textContent = text;
    byId("conn").dataset.state = conn;
    byId("conn").title = text;
  });

  subscribe(["turnId"], () => {
    byId("send").hidden = Boolean(state.turnId);
    byId("stop").hidden = !state.turnId;
  });

  subscribe(["outbox", "busyNote", "turnId", "conn", "sessionId"], () => {
    const queued = queuedHere().length;
    const what = queued === 1 ? "your message" : `${queued} messages`;
    let text = "";
    if (queued > 0) {
      text = state.conn.state === "open" ? `Queued: ${what} will be sent when the running turn ends.` : `Not connected: ${what} will send when reconnected.`;
    } else if (state.busyNote && state.turnId) text = "A turn is running — Stop it or wait.";
    const note = byId("composer-note");
    const shown = !note.hidden;
    note.textContent = text;
    note.hidden = !text;
    // The note takes room from the messages: keep the last one in view.
    if (shown !== Boolean(text)) scrollToEnd();
  });

  // The session's total tokens, in the sidebar (hidden until a turn used some).
  subscribe(["usage", "usageOutside"], () => {
    const turns = Object.values(state.usage);
    const total = { ...state.usageOutside };
    for (const u of turns) {
      total.inputTokens += Number(u?.inputTokens) || 0;
      total.outputTokens += Number(u?.outputTokens) || 0;
    }
    const el = byId("usage-total");
    el.hidden = total.inputTokens + total.outputTokens === 0;
    el.querySelector(".figure").textContent = formatUsage(total);
    el.title = `Model tokens of this chat's ${turns.length} ${turns.length === 1 ? "turn" : "turns"}: read (in) and written (out)`;
  });

  subscribe(["sessions", "sessionId", "active", "shared"], () => {
    const actions = {
      onSwitch: hooks.onSwitch,
      onDelete: hooks.onDelete,
      onRename: hooks.onRename,
      onPin: hooks.onPin,
      onShare: hooks.onShare,
      onPeople: hooks.onPeople,
    };
    if (!state.active) return renderSessions([], null, actions);
    const list = [...state.sessions];
    // The open chat is listed even before the server lists it (just started), unless it is someone else's, shared with this person.
    const sharedHere = state.shared.some((c) => c.sessionId === state.sessionId);
    if (state.sessionId && !sharedHere && !list.some((s) => s.id === state.sessionId)) list.unshift({ id: state.sessionId, title: null });
    renderSessions(list, state.sessionId, actions);
  });

  // The server panel and the My servers dialog follow the same list (`live`: the socket is up).
  subscribe(["servers", "live"], () => {
    renderServers(state.servers, hooks.onToggleServer, { live: state.live });
    hooks.myServers.update(state.servers, state.live);
  });

  subscribe(["alert"], () => {
    byId("alert-text").textContent = state.alert;
    byId("alert").hidden = !state.alert;
  });
  byId("alert-close").addEventListener("click", () => update({ alert: "" }));
}
