// The chat session Durable Object (one per session id): lifecycle hooks and
// routing (its sockets' frames in session-frames.ts). History lives in SQLite (history.ts), turns in turn-runner.ts,
// approvals in ../approval, MCP connections in mcp/session-mcp.ts, its owner and their
// account (spend, runtime servers, the session list) in session-owner.ts, all built and
// wired to each other in session-parts.ts; this class routes its sockets and the
// Worker's RPC calls to them. A session belongs to the
// user who first opened it; the Worker admits only them and the people they invite.
//
// Its methods are spread over a chain of classes, one concern per file (Workers RPC and
// agents' schedule reach inherited methods, as they reach Agent's own):
//   session-core.ts    SessionCore    the parts, log, apps' calls (fields declared only there), shared helpers, server retry
//   session-rpc.ts     SessionRpc     the Worker's RPC: admit, direct calls, MCP Apps, catalog, history, import, delete
//   session-alarms.ts  SessionAlarms  alarm callbacks: idle expiry, an unused chat dropped, the tasks' poll
//   schedules/session-scheduling.ts  SessionScheduling  scheduled runs: their RPC, alarm callback, turn grants
//   people/session-people.ts  SessionPeople  invited people: members, who each socket is, presence, their RPC
//   ChatSession.ts     ChatSession    lifecycle: start, a socket's connect, frames and close
// A new method goes in the file of its concern (or a new class inserted into the chain).
import type { Connection, ConnectionContext } from "agents";
import { deferredLogger, errorMessage } from "../shared/logger";
import type { ClientMessage } from "../protocol/messages";
import { routeFrame, type FrameSite } from "./session-frames";
import { keepNameForAlarms } from "./tasks/task-alarm";
import type { SocketState } from "./notify/presence-watch";
import { SessionPeople } from "./people/session-people";

/** Set by the Worker on the upgrade request it builds itself; a client cannot send it through. */
export const SESSION_USER_HEADER = "x-edgehost-user";
/**
 * The close code of a page leaving a chat it started before anything was sent in it
 * (public/sessions/sessions.js), and how long a reload of that page has to come back to it.
 */
export const LEFT_UNUSED_CLOSE = 4000;
const LEFT_UNUSED_GRACE_S = 5;
/** The request id of the upgrade (src/http/request-log.ts), for the session's log lines. */
export const REQUEST_ID_HEADER = "x-edgehost-request-id";

export class ChatSession extends SessionPeople {
  // ---- lifecycle ----

  override async onStart(): Promise<void> {
    // Heartbeats answered by the runtime itself, so they never wake the object.
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
    this.parts.turns.recoverInterrupted();
    this.parts.owner.resumeReport();
    // Any of this wake's schedules (server retry, expiry, task poll) may fire in a process that gives the alarm no name.
    await keepNameForAlarms(this.ctx.storage, this.name);
  }

  override onConnect(connection: Connection, context: ConnectionContext): void {
    // The Worker admitted this user before forwarding the upgrade; checked again here so
    // a socket is never attached to a session its user neither owns nor was invited to.
    const user = context.request.headers.get(SESSION_USER_HEADER);
    const requestId = context.request.headers.get(REQUEST_ID_HEADER) ?? undefined;
    const person = user ? this.personFor(user) : undefined;
    if (!person) {
      this.log.warn("socket refused", { requestId, reason: "not the owner or a member" });
      connection.close(1008, "not found");
      return;
    }
    connection.setState({ user: person.user, requestId });
    this.log.info("socket opened", { requestId, ...(person.role === "owner" ? {} : { role: person.role }) });
    const { modelInfo, settings } = this.runtime;
    const choice = this.parts.model.current();
    const shared = this.shared;
    this.sendTo(connection, {
      type: "connection",
      sessionId: this.name,
      model: choice ? { provider: choice.provider, model: choice.model } : null,
      ...(choice ? {} : { notice: modelInfo.notice }),
      toolApproval: settings.TOOL_APPROVAL,
      ...(shared ? { you: { key: person.key, name: person.name, role: person.role } } : {}),
    });
    // Before the history: a client that waits for the history has its model too.
    this.sendTo(connection, { type: "model", choice });
    this.sendTo(connection, this.parts.approvals.alwaysAllowedFrame());
    // The chat's schedules (an empty list too: the page shows this chat's, not the last one's),
    // before the history: a client that waits for the history has them, and no turn's frames follow them.
    this.sendTo(connection, this.schedules.frame());
    this.sendTo(connection, this.historyFrame());
    // Read before this connect starts: a session that read the owner's servers before checks them again below.
    const readBefore = this.parts.mcp.knownUserVersion !== undefined;
    // Started before the status is sent: the servers then show as "connecting", not as absent.
    const connecting = this.parts.mcp.ensureConnected();
    this.sendTo(connection, { type: "servers", servers: this.parts.mcp.status() });
    // Questions still open (a reload mid-approval) are asked again on the new socket; held tasks' cards too.
    for (const question of this.parts.approvals.pending()) this.sendTo(connection, question);
    for (const task of this.parts.tasks.frames()) this.sendTo(connection, task);
    // A socket that (re)connects during a turn learns it is running.
    const running = this.parts.turns.running;
    if (running) this.sendTo(connection, { type: "turn_start", turnId: running });
    // Joining mid-answer: what was streamed so far, then the rest live.
    const streamed = this.parts.turns.streamedSoFar();
    if (streamed) this.sendTo(connection, { type: "text", turnId: streamed.turnId, messageId: streamed.messageId, delta: streamed.text });
    this.presenceChanged();
    // What writes to storage (agents' keep-alive alarm, the expiry and retry schedules) waits a macrotask:
    // a write made now would hold the upgrade's answer and every frame above until its commit (the output
    // gate), a disk sync or a replication round trip on the socket's way to open. Losing them in a crash
    // in between loses nothing: they are made again at the next connect.
    setTimeout(() => this.afterConnect(connecting, readBefore), 0);
  }

  /** A socket's connect, once its frames are out: what keeps the object awake and schedules its alarms. */
  private afterConnect(connecting: Promise<void>, readBefore: boolean): void {
    // The owner's rules for all chats may have changed since this chat last heard (a revoke elsewhere): sent again if so.
    void this.keepAliveWhile(() => this.parts.approvals.mine.refresh());
    // A page is watching now: a server left unavailable (a bridge restarted meanwhile) is retried,
    // and attached resources are subscribed again if a wake-up opened new MCP sessions.
    this.scheduleExpiry();
    void this.keepAliveWhile(async () => {
      await connecting;
      // The owner's servers may have changed since (a paired machine removed, a server deleted, from
      // another chat): read again now, not at the next turn, so the page is not shown servers that
      // are gone (a version check when nothing changed). A running turn keeps its connections.
      if (readBefore && !this.parts.turns.running && (await this.parts.mcp.syncUserServers())) await this.parts.mcp.ensureConnected();
      await this.parts.attachments.resubscribe(this.parts.mcp.host()).catch(() => undefined);
    }).then(() => this.watchUnavailable());
    this.watchUnavailable();
  }

  protected override onFrame(connection: Connection, message: ClientMessage): Promise<void> {
    return routeFrame(this.frameSite, connection, message);
  }

  private readonly frameSite: FrameSite = {
    parts: this.parts,
    appCalls: this.appCalls,
    log: deferredLogger(() => this.log),
    sendTo: (connection, message) => this.sendTo(connection, message),
    sendAll: (message) => this.sendAll(message),
    requestIdOf: (connection) => this.requestIdOf(connection),
    personOf: (connection) => this.personOf(connection),
    shared: () => this.shared,
    admitSender: (person) => this.admitSender(person),
    startedBy: (turnId, user) => this.startedBy(turnId, user),
    startedTurn: (user) => this.startedTurn(user),
    connected: () => this.connected(),
    historyFrame: () => this.historyFrame(),
    keepAliveWhile: (work) => this.keepAliveWhile(work),
    applyPreset: (id) => this.applyPreset(id),
    setVisible: (connection, visible) => {
      connection.setState({ ...(connection.state as SocketState | null), visible });
      this.presenceChanged();
    },
  };

  /** The request id of the upgrade that opened `connection` (its log lines carry it). */
  private requestIdOf(connection: Connection): string | undefined {
    const state = connection.state as { requestId?: unknown } | null;
    return typeof state?.requestId === "string" ? state.requestId : undefined;
  }

  override async onClose(_connection: Connection, code: number): Promise<void> {
    // A page closed while a question waits: its person, if now away, is pushed.
    this.parts.notices.late();
    this.presenceChanged();
    // The page that started this chat left it before anything was sent (closed or reloaded):
    // deleted after a grace unless a page comes back to it meanwhile (a reload reuses it).
    if (code === LEFT_UNUSED_CLOSE && this.parts.store.count() === 0) {
      await this.schedule(LEFT_UNUSED_GRACE_S, "dropIfLeftUnused").catch((error: unknown) => {
        this.log.warn("could not schedule dropping an unused chat", { error: errorMessage(error) });
      });
    }
    // The last page went away and nothing runs: end the MCP sessions rather than leave
    // them open at the servers (the bridge would keep them until its idle expiry).
    if (this.openSockets().length > 0 || this.parts.turns.running || !this.parts.connectedMcp) return;
    const mcp = this.parts.connectedMcp;
    this.parts.dropMcp();
    await this.keepAliveWhile(() => mcp.close());
  }
}
