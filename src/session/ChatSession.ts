// The chat session Durable Object (one per session id): lifecycle hooks and
// routing (its sockets' frames in session-frames.ts). History lives in SQLite (history.ts), turns in turn-runner.ts,
// approvals in ../approval, MCP connections in mcp/session-mcp.ts, its owner and their
// account (spend, runtime servers, the session list) in session-owner.ts, all built and
// wired to each other in session-parts.ts; this class routes its sockets and the
// Worker's RPC calls to them. A session belongs to the
// user who first opened it; the Worker admits only them.
import type { Connection, ConnectionContext } from "agents";
import type { Env } from "../config/env";
import type { RuntimeConfig } from "../config/runtime-config";
import type { DirectCallOutcome, ServerInfo } from "./answers";
import type { HostMetrics } from "../mcp/host";
import { deferredLogger, errorMessage, withFields, type Logger } from "../shared/logger";
import { KEEP_ALIVE_GRACE_MS, ProtocolAgent } from "./agent-adapter";
import { callDirect, serversInfo } from "./direct-calls";
import type { NewEntry, StoredEntry } from "./history";
import { fullEntry, historyPage, wholeHistory, type HistoryPage } from "./history-pages";
import { toWire, type ClientMessage, type HistoryEntry, type ServerMessage, type Usage } from "../protocol/messages";
import { forgetServerChoice } from "./mcp/session-mcp";
import { AppCalls, readAppResource, type AppResourceOutcome, type AppToolCallOutcome } from "./mcp-apps";
import type { Admission } from "./session-owner";
import { SessionParts } from "./session-parts";
import { routeFrame, type FrameSite } from "./session-frames";
import { catalogComplete, catalogList, type CatalogKind, type CatalogList, type CatalogOutcome } from "./catalog-calls";
import type { CompleteInput, Completion } from "../mcp/catalog";
import { ImportedEntriesSchema, importInto, type ImportedEntry } from "./history-import";
import { keepNameForAlarms, wakeForTasks } from "./tasks/task-alarm";
import { type SocketState, visiblePeople } from "./notify/presence-watch";
import { answerFromPush, type PushAnswer } from "./notify/push-answer";

/** Set by the Worker on the upgrade request it builds itself; a client cannot send it through. */
export const SESSION_USER_HEADER = "x-edgehost-user";
const DAY_MS = 24 * 60 * 60_000;
const IDLE_SINCE_KEY = "idle_since";
/**
 * The close code of a page leaving a chat it started before anything was sent in it
 * (public/sessions/sessions.js), and how long a reload of that page has to come back to it.
 */
export const LEFT_UNUSED_CLOSE = 4000;
const LEFT_UNUSED_GRACE_S = 5;
/** The request id of the upgrade (src/http/request-log.ts), for the session's log lines. */
export const REQUEST_ID_HEADER = "x-edgehost-request-id";

export class ChatSession extends ProtocolAgent<Env> {
  /** This wake checked that an expiry alarm exists (SESSION_TTL_DAYS). */
  private expiryChecked = false;
  /** A background retry is scheduled (in memory: after a wake at worst one extra retry runs). */
  private retryScheduled = false;
  /** MCP Apps' tool calls waiting for approval or running (ended by a reset or delete). */
  private readonly appCalls = new AppCalls((message) => this.sendAll(message));

  private get runtime(): RuntimeConfig {
    return this.parts.runtime;
  }

  /** The session's parts (session-parts.ts), built on first use. */
  private readonly parts: SessionParts = new SessionParts({
    env: this.env,
    ctx: this.ctx,
    name: () => this.name,
    log: deferredLogger(() => this.log),
    sendAll: (message) => this.sendAll(message),
    keepAliveWhile: (work) => this.keepAliveWhile(work),
    keepAliveAfter: (graceMs, work) => this.keepAliveAfter(graceMs, work),
    record: (entry) => this.record(entry),
    historyFrame: () => this.historyFrame(),
    watchUnavailable: () => this.watchUnavailable(),
    wakeForTasks: (at) => wakeForTasks(this, at, this.log),
    visibleUsers: () => visiblePeople(this.openSockets()),
  });

  /**
   * This session's log lines: the Worker's logger with the session's id, its owner (read at
   * each line: a new session learns it) and, during a turn, the turn's id (the MCP host's
   * lines of a turn's tool calls carry it too).
   */
  private readonly log: Logger = deferredLogger(() => {
    const turnId = this.parts.runningTurn;
    return withFields(this.runtime.logger, {
      component: "session",
      session: this.name,
      user: this.parts.owner.name ?? this.parts.owner.id,
      ...(turnId ? { turnId } : {}),
    });
  });

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
    // a socket is never attached to a session its user does not own.
    const user = context.request.headers.get(SESSION_USER_HEADER);
    const requestId = context.request.headers.get(REQUEST_ID_HEADER) ?? undefined;
    if (!user || user !== this.parts.owner.id) {
      this.log.warn("socket refused", { requestId, reason: "not the owner" });
      connection.close(1008, "not found");
      return;
    }
    connection.setState({ user, requestId });
    this.log.info("socket opened", { requestId });
    const { modelInfo, settings } = this.runtime;
    const choice = this.parts.model.current();
    this.sendTo(connection, {
      type: "connection",
      sessionId: this.name,
      model: choice ? { provider: choice.provider, model: choice.model } : null,
      ...(choice ? {} : { notice: modelInfo.notice }),
      toolApproval: settings.TOOL_APPROVAL,
    });
    // Before the history: a client that waits for the history has its model too.
    this.sendTo(connection, { type: "model", choice });
    this.sendTo(connection, this.parts.approvals.alwaysAllowedFrame());
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
    fromOwner: (connection) => this.fromOwner(connection),
    connected: () => this.connected(),
    historyFrame: () => this.historyFrame(),
    keepAliveWhile: (work) => this.keepAliveWhile(work),
    setVisible: (connection, visible) => connection.setState({ ...(connection.state as SocketState | null), visible }),
  };

  /** The request id of the upgrade that opened `connection` (its log lines carry it). */
  private requestIdOf(connection: Connection): string | undefined {
    const state = connection.state as { requestId?: unknown } | null;
    return typeof state?.requestId === "string" ? state.requestId : undefined;
  }

  override async onClose(_connection: Connection, code: number): Promise<void> {
    // A page closed while a question waits: its person, if now away, is pushed.
    this.parts.notices.late();
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

  /**
   * While a page is open, an unavailable server is retried in the background (on the
   * host's backoff, through an alarm that survives hibernation), so the panel turns
   * ready when the server is back rather than at the next turn. Nobody watching: no retries.
   */
  private watchUnavailable(): void {
    const connected = this.parts.connectedMcp;
    if (!connected || this.openSockets().length === 0) return;
    const waits = connected
      .host()
      .servers()
      .filter((s) => s.state === "unavailable")
      .map((s) => s.retryAfterMs ?? 0);
    if (waits.length === 0 || this.retryScheduled) return;
    // Not agents' `idempotent` schedule: it would match the retry that is running right
    // now (its row lives until the callback returns) and so never schedule the next one.
    this.retryScheduled = true;
    const seconds = Math.max(1, Math.ceil(Math.min(...waits) / 1000));
    void this.schedule(seconds, "retryUnavailable").catch((error: unknown) => {
      this.retryScheduled = false;
      this.log.warn("could not schedule a server retry", { error: errorMessage(error) });
    });
  }

  // ---- expiry (SESSION_TTL_DAYS) ----

  /** One expiry alarm per session, made on the first socket of a wake when none exists; it moves itself forward when it fires. */
  private scheduleExpiry(): void {
    const days = this.runtime.settings.SESSION_TTL_DAYS;
    if (!days || this.expiryChecked) return;
    this.expiryChecked = true;
    const expiring = this.getSchedules().some((s) => s.callback === "expireIfIdle");
    if (expiring) return;
    const from = this.lastActivity() ?? Date.now();
    // An empty session counts from now: it never wrote an entry to date it by.
    if (this.parts.store.lastActivity() === undefined) this.parts.store.setSetting(IDLE_SINCE_KEY, from);
    void this.schedule(new Date(from + days * DAY_MS), "expireIfIdle").catch((error: unknown) => {
      this.expiryChecked = false;
      this.log.warn("could not schedule the session's expiry", { error: errorMessage(error) });
    });
  }

  /**
   * Alarm callback: a session idle for SESSION_TTL_DAYS deletes itself (its history and
   * attachments, and its line in the owner's list; the owner stays recorded, so the id is
   * never anyone else's). Otherwise the alarm moves to the new due date. True when deleted.
   */
  async expireIfIdle(_payload?: unknown, _schedule?: unknown, now = Date.now()): Promise<boolean> {
    const days = this.runtime.settings.SESSION_TTL_DAYS;
    if (!days) return false;
    const last = this.lastActivity();
    const due = (last ?? now) + days * DAY_MS;
    if (now < due || this.parts.turns.running || this.openSockets().length > 0) {
      await this.schedule(new Date(Math.max(due, now + 60_000)), "expireIfIdle");
      return false;
    }
    this.log.info("session expired", { idleDays: last === undefined ? days : Math.floor((now - last) / DAY_MS) });
    await this.deleteSession();
    return true;
  }

  /** The newest entry's time, or when an empty session was first seen. */
  private lastActivity(): number | undefined {
    return this.parts.store.lastActivity() ?? this.parts.store.getSetting<number>(IDLE_SINCE_KEY);
  }

  /** Alarm callback: a chat its page left unused (onClose) is deleted if still empty and nobody came back. True when deleted. */
  async dropIfLeftUnused(): Promise<boolean> {
    if (this.openSockets().length > 0 || this.parts.turns.running || this.parts.store.count() > 0) return false;
    this.log.info("unused chat dropped", {});
    await this.deleteSession();
    return true;
  }

  /** Alarm callback: the held tasks' next `tasks/get` is due (tasks/session-tasks.ts). */
  async pollTasks(): Promise<void> {
    await this.keepAliveWhile(() => this.parts.tasks.poll());
  }

  /** Alarm callback (see watchUnavailable); the reconnect broadcasts any state change. */
  async retryUnavailable(): Promise<void> {
    this.retryScheduled = false;
    const connected = this.parts.connectedMcp;
    if (!connected || this.openSockets().length === 0) return;
    await connected.host().reconnect();
    this.watchUnavailable();
  }

  private record(entry: NewEntry): StoredEntry {
    const saved = this.parts.store.append(entry);
    this.sendAll({ type: "entry", entry: toWire.entry(saved) });
    return saved;
  }

  /** The newest part of the conversation's current path, its turns' tokens and versions (history-pages.ts). */
  private historyFrame(): Extract<ServerMessage, { type: "history" }> {
    return { type: "history", ...historyPage(this.parts.store) };
  }

  private fromOwner(connection: Connection): boolean {
    const state = connection.state as { user?: unknown } | null;
    return typeof state?.user === "string" && state.user === this.parts.owner.id;
  }

  // ---- RPC for the Worker (it checked the caller's identity; each call is checked against the owner) ----

  /** Whether `user` owns this session; the first user to open it becomes its owner. */
  admit(user: string, options: { claim: boolean; listed?: boolean; name?: string }): Promise<Admission> {
    return this.parts.owner.admit(user, options);
  }

  async serversInfo(): Promise<ServerInfo[]> {
    return serversInfo(this.parts.mcp, this.parts.approvals);
  }

  metricsInfo(): HostMetrics {
    return this.parts.mcp.host().metrics();
  }

  async callTool(name: string, args: Record<string, unknown>, approval: { approved: boolean; remember: boolean }): Promise<DirectCallOutcome> {
    const refused = await this.parts.owner.refuseCall();
    if (refused) return refused;
    if (approval.approved && approval.remember) this.parts.approvals.remember(name);
    const outcome = await this.keepAliveAfter(KEEP_ALIVE_GRACE_MS, () =>
      callDirect(this.parts.mcp, this.parts.approvals, (entry) => this.record(entry), name, args, approval.approved),
    );
    this.parts.reporter.send();
    return outcome;
  }

  /** MCP Apps: the HTML and declared CSP of a `ui://` resource a tool of `server` declares (mcp-apps.ts). */
  async appResource(server: string, uri: string): Promise<AppResourceOutcome> {
    return this.keepAliveWhile(() => readAppResource(this.parts.mcp, server, uri));
  }

  /** MCP Apps: a tool call from an app framed in the page, asked for approval like a model's call. */
  async appToolCall(request: { id?: string; server: string; tool: string; arguments: Record<string, unknown> }): Promise<AppToolCallOutcome> {
    const refused = await this.parts.owner.refuseCall();
    if (refused) return refused;
    return this.keepAliveWhile(() => this.appCalls.call(this.parts.mcp, this.parts.approvals, request));
  }

  /** MCP Apps: the page cancels an app's pending call (its app went away, or cancelled it). */
  cancelAppToolCall(id: string): boolean {
    return this.appCalls.cancel(id);
  }

  /** Closes and reopens this session's MCP connections (after a server was fixed, or its config changed). */
  async restartServers(): Promise<void> {
    // A changed list already rebuilt the connections; otherwise rebuild them now.
    if (!(await this.parts.mcp.syncUserServers())) await this.parts.mcp.rebuild();
    await this.keepAliveWhile(() => this.parts.mcp.ensureConnected());
  }

  /** Reconnects one server at once: its owner just signed in to it (src/http/oauth.ts). */
  async reconnectServer(name: string): Promise<string | undefined> {
    return this.keepAliveWhile(() => this.parts.mcp.reconnectServer(name));
  }

  /** The resources, templates or prompts of this session's enabled servers (connecting first when needed). */
  async catalog(kind: CatalogKind): Promise<CatalogList> {
    await this.connected();
    return catalogList(this.parts.mcp, kind);
  }

  async complete(input: CompleteInput): Promise<CatalogOutcome<Completion>> {
    await this.connected();
    return this.keepAliveWhile(() => catalogComplete(this.parts.attachments, this.parts.mcp, input));
  }

  /** The session's MCP connections opened (a server that failed is reported by its state, not thrown). */
  private connected(): Promise<void> {
    return this.keepAliveWhile(() => this.parts.mcp.ensureConnected()).catch(() => undefined);
  }

  /** The newest window of the history, or the one before entry `before` (the page scrolled up). */
  getHistory(before?: number): HistoryPage {
    return historyPage(this.parts.store, before);
  }

  /** The conversation's current path whole, for the account's export. */
  exportHistory(): { entries: HistoryEntry[]; usage: Record<string, Usage> } {
    return wholeHistory(this.parts.store);
  }

  /** One history entry whole (a window sends big results shortened); undefined if not on the current path. */
  getEntry(seq: number): HistoryEntry | undefined {
    return fullEntry(this.parts.store, seq);
  }

  /** A new session's history from an export (src/http/import.ts): written only into an empty session, then made searchable. */
  async importHistory(entries: ImportedEntry[]): Promise<{ imported: number } | { refused: string }> {
    const parsed = ImportedEntriesSchema.safeParse(entries);
    if (!parsed.success) return { refused: "the entries are not valid" };
    if (this.parts.store.count() > 0) return { refused: "the session is not empty" };
    const imported = importInto(this.parts.store, parsed.data);
    this.parts.searchFeed.flush();
    await this.parts.searchFeed.settled();
    return { imported };
  }

  /** A notification's Allow once / Deny (POST /push/act): the token is the credential; `presenter` who is signed in, if anyone. */
  answerPush(token: string, approved: boolean, presenter?: string): Promise<PushAnswer> {
    return answerFromPush(this.parts, this.log, token, approved, presenter);
  }

  async deleteSession(): Promise<void> {
    // The owner stays recorded: a deleted id can never be claimed by someone else.
    await this.parts.owner.unlist();
    // Waited for: a turn that raced the delete (Delete my data) records nothing after the history is cleared.
    await this.parts.turns.drop("session deleted");
    this.appCalls.cancelAll("session deleted");
    await this.parts.tasks.forget();
    await this.parts.attachments.forget(this.parts.connectedMcp?.host());
    await this.parts.files.forget();
    await this.parts.connectedMcp?.close();
    this.parts.dropMcp();
    for (const connection of this.getConnections()) connection.close(1000, "session deleted");
    this.parts.store.clear();
    this.parts.approvals.forget();
    forgetServerChoice(this.parts.store);
    this.parts.model.forget();
  }
}
