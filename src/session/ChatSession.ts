// The chat session Durable Object (one per session id): lifecycle hooks and
// routing. History lives in SQLite (history.ts), turns in turn-runner.ts,
// approvals in ../approval, MCP connections in session-mcp.ts, its owner and their
// account (spend, runtime servers, the session list) in session-owner.ts; this class
// wires them to its sockets and to the Worker's RPC calls. A session belongs to the
// user who first opened it; the Worker admits only them.
import type { Connection, ConnectionContext } from "agents";
import { Approvals } from "../approval/approvals";
import type { Env } from "../config/env";
import { runtimeConfig, type RuntimeConfig } from "../config/runtime-config";
import type { DirectCallOutcome, ServerInfo } from "./answers";
import type { HostMetrics } from "../mcp/host";
import { deferredLogger, errorMessage, withFields, type Logger } from "../shared/logger";
import { KEEP_ALIVE_GRACE_MS, ProtocolAgent } from "./agent-adapter";
import { callDirect, serversInfo } from "./direct-calls";
import { OperationsReporter } from "./operations-report";
import { HistoryStore, type NewEntry, type StoredEntry } from "./history";
import { fullEntry, historyPage, wholeHistory, type HistoryPage } from "./history-pages";
import { toWire, type ClientMessage, type HistoryEntry, type ServerMessage, type Usage } from "../protocol/messages";
import { branchOpening, TURN_RUNNING, unknownTurn } from "./branch-opening";
import { SessionMcp, forgetServerChoice } from "./session-mcp";
import { AppCalls, readAppResource, type AppResourceOutcome, type AppToolCallOutcome } from "./mcp-apps";
import { TurnRunner } from "./turn-runner";
import { SessionModel } from "./session-model";
import { SessionOwner, type Admission } from "./session-owner";
import { accountOAuthStorage, sessionOAuthProvider } from "../users/oauth-client-storage";
import { userAccount } from "../users/account";
import { machineFetch } from "../servers/machines";
import { serverUrlRefusal } from "../servers/url-policy";
import { AttachmentStore } from "./attachment-store";
import { SessionAttachments } from "./attachments";
import { catalogComplete, catalogList, type CatalogKind, type CatalogList, type CatalogOutcome } from "./catalog-calls";
import { openWithPrompt } from "./prompt-opening";
import { openMessage } from "./message-opening";
import { SessionFiles } from "./session-files";
import type { CompleteInput, Completion } from "../mcp/catalog";
import { SearchFeed } from "./search-feed";
import { ImportedEntriesSchema, importInto, type ImportedEntry } from "./history-import";

/** Set by the Worker on the upgrade request it builds itself; a client cannot send it through. */
export const SESSION_USER_HEADER = "x-edgehost-user";
const DAY_MS = 24 * 60 * 60_000;
const IDLE_SINCE_KEY = "idle_since";
/** The request id of the upgrade (src/http/request-log.ts), for the session's log lines. */
export const REQUEST_ID_HEADER = "x-edgehost-request-id";

export class ChatSession extends ProtocolAgent<Env> {
  private storeCache?: HistoryStore;
  private approvalsCache?: Approvals;
  private mcpCache?: SessionMcp;
  private turnsCache?: TurnRunner;
  private attachmentsCache?: SessionAttachments;
  private attachmentStoreCache?: AttachmentStore;
  private filesCache?: SessionFiles;
  private ownerCache?: SessionOwner;
  private reporterCache?: OperationsReporter;
  private modelCache?: SessionModel;
  private searchFeedCache?: SearchFeed;
  /** This wake checked that an expiry alarm exists (SESSION_TTL_DAYS). */
  private expiryChecked = false;
  /** A background retry is scheduled (in memory: after a wake at worst one extra retry runs). */
  private retryScheduled = false;
  /** MCP Apps' tool calls waiting for approval or running (ended by a reset or delete). */
  private readonly appCalls = new AppCalls((message) => this.sendAll(message));

  private get runtime(): RuntimeConfig {
    return runtimeConfig(this.env);
  }

  /**
   * This session's log lines: the Worker's logger with the session's id, its owner (read at
   * each line: a new session learns it) and, during a turn, the turn's id (the MCP host's
   * lines of a turn's tool calls carry it too).
   */
  private readonly log: Logger = deferredLogger(() => {
    const turnId = this.turnsCache?.running;
    return withFields(this.runtime.logger, {
      component: "session",
      session: this.name,
      user: this.sessionOwner.name ?? this.sessionOwner.id,
      ...(turnId ? { turnId } : {}),
    });
  });

  /** What this session tells the operator's view (/admin): its tool calls, servers and turns. */
  private get reporter(): OperationsReporter {
    this.reporterCache ??= new OperationsReporter({
      env: this.env,
      settings: () => this.runtime.settings,
      session: this.name,
      owner: () => {
        const id = this.sessionOwner.id;
        return id ? { id, name: this.sessionOwner.name ?? id } : undefined;
      },
      servers: () => this.sessionMcp.status(),
      waitUntil: (work) => this.ctx.waitUntil(work),
    });
    return this.reporterCache;
  }

  private get sessionStore(): HistoryStore {
    this.storeCache ??= new HistoryStore(this.ctx.storage.sql);
    return this.storeCache;
  }

  private get sessionOwner(): SessionOwner {
    this.ownerCache ??= new SessionOwner(this.env, this.name, this.sessionStore, () => this.runtime.settings);
    return this.ownerCache;
  }

  /** The owner's search index learns this session's messages (search-feed.ts). */
  private get searchFeed(): SearchFeed {
    this.searchFeedCache ??= new SearchFeed({
      sessionId: this.name,
      store: this.sessionStore,
      account: () => this.sessionOwner.listedAccount(),
      keepAliveWhile: (work) => this.keepAliveWhile(work),
    });
    return this.searchFeedCache;
  }

  private get sessionModel(): SessionModel {
    this.modelCache ??= new SessionModel({ store: this.sessionStore, config: () => this.runtime, ownProviders: () => this.sessionOwner.modelProviders() });
    return this.modelCache;
  }

  private get sessionApprovals(): Approvals {
    this.approvalsCache ??= new Approvals({
      required: this.runtime.settings.TOOL_APPROVAL,
      alwaysAllow: (server) => this.sessionMcp.configuredServers().find((s) => s.name === server)?.alwaysAllow ?? [],
      store: this.sessionStore,
      broadcast: (message) => this.sendAll(message),
    });
    return this.approvalsCache;
  }

  private get sessionMcp(): SessionMcp {
    this.mcpCache ??= new SessionMcp({
      env: this.env,
      logger: this.log,
      userServers: (known) => this.sessionOwner.servers(known),
      settings: this.runtime.settings,
      store: this.sessionStore,
      approvals: this.sessionApprovals,
      changed: () => {
        this.sendAll({ type: "servers", servers: this.sessionMcp.status() });
        this.watchUnavailable();
      },
      notice: (text) => this.record({ turnId: this.sessionTurns.running ?? null, kind: "notice", text }),
      provider: () => this.sessionModel.resolve().then((r) => (r.ok ? r.provider : undefined)),
      samplingModel: (preferences, listed) => this.sessionModel.samplingPick(preferences, listed),
      used: (tokens, hold) => this.sessionOwner.addUsage(tokens, hold),
      samplingRefusal: (hold, tokens) => this.sessionOwner.holdSampling(hold, tokens),
      oauth: (server) => {
        const owner = this.sessionOwner.id;
        return owner ? sessionOAuthProvider(this.env, owner, server) : undefined;
      },
      audience: () => {
        const owner = this.sessionOwner.id;
        return { mode: this.runtime.auth.mode, user: owner ? { id: owner, name: this.sessionOwner.name } : undefined };
      },
      refuseUrl: (url) => serverUrlRefusal(url, { deployed: this.runtime.auth.mode !== "none", allowPrivate: this.runtime.settings.ALLOW_PRIVATE_SERVER_URLS }),
      recordChallenge: async (server, challenge) => {
        const owner = this.sessionOwner.id;
        // Only for a server the owner signs in to (no Authorization header of its own).
        if (owner && sessionOAuthProvider(this.env, owner, server)) await accountOAuthStorage(this.env, owner, server).save({ challenge });
      },
      machineFetch: machineFetch(() => {
        const owner = this.sessionOwner.id;
        return owner ? userAccount(this.env, owner) : undefined;
      }),
      toolCalled: this.reporter.toolCalled,
    });
    return this.mcpCache;
  }

  private get attachmentStore(): AttachmentStore {
    this.attachmentStoreCache ??= new AttachmentStore(this.ctx.storage.sql);
    return this.attachmentStoreCache;
  }

  private get sessionAttachments(): SessionAttachments {
    this.attachmentsCache ??= new SessionAttachments({
      store: this.attachmentStore,
      host: () => this.sessionMcp.host(),
      configured: (server) => this.sessionMcp.isConfigured(server),
      enabled: (server) => this.sessionMcp.isEnabled(server),
      maxChars: () => this.runtime.settings.TOOL_RESULT_CHARS,
      broadcast: (message) => this.sendAll(message),
      keepAliveWhile: (work) => this.keepAliveWhile(work),
      warn: (message) => this.log.warn(message),
    });
    return this.attachmentsCache;
  }

  /** Files from the owner's computer attached to this session's messages (session-files.ts). */
  private get sessionFiles(): SessionFiles {
    this.filesCache ??= new SessionFiles({
      env: this.env,
      session: this.name,
      owner: () => this.sessionOwner.id,
      maxFiles: () => this.runtime.settings.UPLOAD_MAX_FILES,
      maxChars: () => this.runtime.settings.TOOL_RESULT_CHARS,
    });
    return this.filesCache;
  }

  private get sessionTurns(): TurnRunner {
    this.turnsCache ??= new TurnRunner({
      store: this.sessionStore,
      mcp: () => this.sessionMcp,
      approvals: this.sessionApprovals,
      config: () => this.runtime,
      model: () => this.sessionModel.resolve(),
      admit: (ownKey) => {
        const begun = this.sessionOwner.beginTurn(this.sessionMcp.knownUserVersion, ownKey);
        this.sessionMcp.useUserServers(begun.then((b) => b.servers));
        return begun.then((b) => b.decision);
      },
      touched: (text) => {
        this.sessionOwner.touched(text);
        this.searchFeed.flush();
      },
      used: async (usage, ownKey) => {
        if (!ownKey) this.sessionOwner.turnUsage(usage.inputTokens + usage.outputTokens);
      },
      record: (entry) => this.record(entry),
      broadcast: (message) => this.sendAll(message),
      keepAliveWhile: (work) => this.keepAliveAfter(KEEP_ALIVE_GRACE_MS, work),
      attachedParts: async (entry) => {
        const parts = [...(this.sessionAttachments.parts(entry) ?? []), ...((await this.sessionFiles.parts(entry.files)) ?? [])];
        return parts.length > 0 ? parts : undefined;
      },
      log: this.log,
      report: (turn) => {
        this.reporter.send(turn);
        this.searchFeed.flush();
      },
      branched: () => this.sendAll(this.historyFrame()),
    });
    return this.turnsCache;
  }

  // ---- lifecycle ----

  override async onStart(): Promise<void> {
    // Heartbeats answered by the runtime itself, so they never wake the object.
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
    this.sessionTurns.recoverInterrupted();
    this.sessionOwner.resumeReport();
  }

  override onConnect(connection: Connection, context: ConnectionContext): void {
    // The Worker admitted this user before forwarding the upgrade; checked again here so
    // a socket is never attached to a session its user does not own.
    const user = context.request.headers.get(SESSION_USER_HEADER);
    const requestId = context.request.headers.get(REQUEST_ID_HEADER) ?? undefined;
    if (!user || user !== this.sessionOwner.id) {
      this.log.warn("socket refused", { requestId, reason: "not the owner" });
      connection.close(1008, "not found");
      return;
    }
    connection.setState({ user, requestId });
    this.log.info("socket opened", { requestId });
    const { modelInfo, settings } = this.runtime;
    const choice = this.sessionModel.current();
    this.sendTo(connection, {
      type: "connection",
      sessionId: this.name,
      model: choice ? { provider: choice.provider, model: choice.model } : null,
      ...(choice ? {} : { notice: modelInfo.notice }),
      toolApproval: settings.TOOL_APPROVAL,
    });
    // Before the history: a client that waits for the history has its model too.
    this.sendTo(connection, { type: "model", choice });
    this.sendTo(connection, this.sessionApprovals.alwaysAllowedFrame());
    this.sendTo(connection, this.historyFrame());
    // Started before the status is sent: the servers then show as "connecting", not as absent.
    const connecting = this.sessionMcp.ensureConnected();
    this.sendTo(connection, { type: "servers", servers: this.sessionMcp.status() });
    // Questions still open (a reload mid-approval) are asked again on the new socket.
    for (const question of this.sessionApprovals.pending()) this.sendTo(connection, question);
    // A socket that (re)connects during a turn learns it is running.
    const running = this.sessionTurns.running;
    if (running) this.sendTo(connection, { type: "turn_start", turnId: running });
    // Joining mid-answer: what was streamed so far, then the rest live.
    const streamed = this.sessionTurns.streamedSoFar();
    if (streamed) this.sendTo(connection, { type: "text", turnId: streamed.turnId, messageId: streamed.messageId, delta: streamed.text });
    // A page is watching now: a server left unavailable (a bridge restarted meanwhile) is retried,
    // and attached resources are subscribed again if a wake-up opened new MCP sessions.
    this.scheduleExpiry();
    void this.keepAliveWhile(async () => {
      await connecting;
      await this.sessionAttachments.resubscribe(this.sessionMcp.host()).catch(() => undefined);
    }).then(() => this.watchUnavailable());
    this.watchUnavailable();
  }

  protected override async onFrame(connection: Connection, message: ClientMessage): Promise<void> {
    switch (message.type) {
      case "message": {
        const { text, attachments, files } = message;
        const refused = await this.sessionTurns.start(
          attachments?.length || files?.length
            ? () =>
                openMessage(text, { attachments, files }, { files: this.sessionFiles, resources: this.sessionAttachments, connected: () => this.connected() })
            : text,
          { requestId: this.requestIdOf(connection) },
        );
        if (refused) this.sendTo(connection, refused);
        return;
      }
      case "prompt": {
        const refused = await this.sessionTurns.start(
          () =>
            this.connected().then(() =>
              openWithPrompt(message, { host: this.sessionMcp.host(), attachments: this.sessionAttachments, store: this.attachmentStore }),
            ),
          { requestId: this.requestIdOf(connection) },
        );
        if (refused) this.sendTo(connection, refused);
        return;
      }
      case "cancel":
        return this.sessionTurns.cancel(message.turnId);
      case "regenerate":
      case "edit": {
        const opening = branchOpening(this.sessionStore, message.turnId, message.type === "edit" ? message.text : undefined);
        if (!opening) return this.sendTo(connection, unknownTurn(message.turnId));
        const refused = await this.sessionTurns.start(async () => opening, { requestId: this.requestIdOf(connection), branchOf: message.turnId });
        if (refused) this.sendTo(connection, refused);
        return;
      }
      case "compact": {
        const refused = await this.sessionTurns.compactNow({ requestId: this.requestIdOf(connection) });
        if (refused) this.sendTo(connection, refused);
        return;
      }
      case "switch_branch": {
        if (this.sessionTurns.running) return this.sendTo(connection, TURN_RUNNING);
        if (!this.sessionStore.tree.switchTo(message.turnId)) return this.sendTo(connection, unknownTurn(message.turnId));
        return this.sendAll(this.historyFrame());
      }
      case "approval":
      case "elicitation_response": {
        // Answers count only from the owner's sockets (the only ones admitted, checked again).
        if (!this.fromOwner(connection)) {
          this.log.warn("answer refused", { requestId: this.requestIdOf(connection), reason: "not the owner's socket" });
          return;
        }
        const answered = this.sessionApprovals.answer(message);
        if (!answered.ok) {
          this.log.warn("answer refused", { requestId: this.requestIdOf(connection), code: answered.code });
          this.sendTo(connection, { type: "error", code: answered.code, message: answered.message });
        } else if (message.type === "approval")
          this.log.info("approval answered", { requestId: this.requestIdOf(connection), callId: message.callId, approved: message.approved });
        return;
      }
      case "set_model": {
        const { type: _type, ...choice } = message;
        try {
          this.sendAll({ type: "model", choice: await this.sessionModel.set(choice) });
        } catch (error) {
          this.sendTo(connection, toWire.error(error));
        }
        return;
      }
      case "revoke_always":
        if (!this.fromOwner(connection)) return;
        if (!this.sessionApprovals.revoke(message.tool))
          this.sendTo(connection, { type: "error", code: "not_always_allowed", message: `${message.tool} is not always allowed in this session` });
        return;
      case "set_servers": {
        // A server switched on that was left unconnected is connected now, unless a turn runs (then at the next turn).
        const connect = this.sessionMcp.setEnabled(message.enabled);
        this.sendAll({ type: "servers", servers: this.sessionMcp.status() });
        if (connect && !this.sessionTurns.running) void this.keepAliveWhile(connect).catch(() => undefined);
        return;
      }
      case "ping":
        return this.sendTo(connection, { type: "pong" });
      case "reset":
        this.sessionTurns.cancel(undefined, "reset");
        this.appCalls.cancelAll("reset");
        this.sessionStore.clear();
        this.searchFeed.forget();
        void this.keepAliveWhile(() => this.sessionAttachments.forget(this.mcpCache?.host()));
        // Before the page hears the history is empty: by then its files are gone too.
        await this.keepAliveWhile(() => this.sessionFiles.forget()).catch((error: unknown) =>
          this.log.warn("could not delete the session's files", { error: errorMessage(error) }),
        );
        this.sendAll({ type: "history", entries: [] });
        return;
    }
  }

  /** The request id of the upgrade that opened `connection` (its log lines carry it). */
  private requestIdOf(connection: Connection): string | undefined {
    const state = connection.state as { requestId?: unknown } | null;
    return typeof state?.requestId === "string" ? state.requestId : undefined;
  }

  override async onClose(): Promise<void> {
    // The last page went away and nothing runs: end the MCP sessions rather than leave
    // them open at the servers (the bridge would keep them until its idle expiry).
    if (this.openSockets().length > 0 || this.sessionTurns.running || !this.mcpCache) return;
    const mcp = this.mcpCache;
    this.mcpCache = undefined;
    await this.keepAliveWhile(() => mcp.close());
  }

  /**
   * While a page is open, an unavailable server is retried in the background (on the
   * host's backoff, through an alarm that survives hibernation), so the panel turns
   * ready when the server is back rather than at the next turn. Nobody watching: no retries.
   */
  private watchUnavailable(): void {
    if (!this.mcpCache || this.openSockets().length === 0) return;
    const waits = this.mcpCache
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
    if (this.sessionStore.lastActivity() === undefined) this.sessionStore.setSetting(IDLE_SINCE_KEY, from);
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
    if (now < due || this.sessionTurns.running || this.openSockets().length > 0) {
      await this.schedule(new Date(Math.max(due, now + 60_000)), "expireIfIdle");
      return false;
    }
    this.log.info("session expired", { idleDays: last === undefined ? days : Math.floor((now - last) / DAY_MS) });
    await this.deleteSession();
    return true;
  }

  /** The newest entry's time, or when an empty session was first seen. */
  private lastActivity(): number | undefined {
    return this.sessionStore.lastActivity() ?? this.sessionStore.getSetting<number>(IDLE_SINCE_KEY);
  }

  /** Alarm callback (see watchUnavailable); the reconnect broadcasts any state change. */
  async retryUnavailable(): Promise<void> {
    this.retryScheduled = false;
    if (!this.mcpCache || this.openSockets().length === 0) return;
    await this.mcpCache.host().reconnect();
    this.watchUnavailable();
  }

  private record(entry: NewEntry): StoredEntry {
    const saved = this.sessionStore.append(entry);
    this.sendAll({ type: "entry", entry: toWire.entry(saved) });
    return saved;
  }

  /** The newest part of the conversation's current path, its turns' tokens and versions (history-pages.ts). */
  private historyFrame(): Extract<ServerMessage, { type: "history" }> {
    return { type: "history", ...historyPage(this.sessionStore) };
  }

  private fromOwner(connection: Connection): boolean {
    const state = connection.state as { user?: unknown } | null;
    return typeof state?.user === "string" && state.user === this.sessionOwner.id;
  }

  // ---- RPC for the Worker (it checked the caller's identity; each call is checked against the owner) ----

  /** Whether `user` owns this session; the first user to open it becomes its owner. */
  admit(user: string, options: { claim: boolean; listed?: boolean; name?: string }): Promise<Admission> {
    return this.sessionOwner.admit(user, options);
  }

  async serversInfo(): Promise<ServerInfo[]> {
    return serversInfo(this.sessionMcp, this.sessionApprovals);
  }

  metricsInfo(): HostMetrics {
    return this.sessionMcp.host().metrics();
  }

  async callTool(name: string, args: Record<string, unknown>, approval: { approved: boolean; remember: boolean }): Promise<DirectCallOutcome> {
    const refused = await this.sessionOwner.refuseCall();
    if (refused) return refused;
    if (approval.approved && approval.remember) this.sessionApprovals.remember(name);
    const outcome = await this.keepAliveAfter(KEEP_ALIVE_GRACE_MS, () =>
      callDirect(this.sessionMcp, this.sessionApprovals, (entry) => this.record(entry), name, args, approval.approved),
    );
    this.reporter.send();
    return outcome;
  }

  /** MCP Apps: the HTML and declared CSP of a `ui://` resource a tool of `server` declares (mcp-apps.ts). */
  async appResource(server: string, uri: string): Promise<AppResourceOutcome> {
    return this.keepAliveWhile(() => readAppResource(this.sessionMcp, server, uri));
  }

  /** MCP Apps: a tool call from an app framed in the page, asked for approval like a model's call. */
  async appToolCall(request: { id?: string; server: string; tool: string; arguments: Record<string, unknown> }): Promise<AppToolCallOutcome> {
    const refused = await this.sessionOwner.refuseCall();
    if (refused) return refused;
    return this.keepAliveWhile(() => this.appCalls.call(this.sessionMcp, this.sessionApprovals, request));
  }

  /** MCP Apps: the page cancels an app's pending call (its app went away, or cancelled it). */
  cancelAppToolCall(id: string): boolean {
    return this.appCalls.cancel(id);
  }

  /** Closes and reopens this session's MCP connections (after a server was fixed, or its config changed). */
  async restartServers(): Promise<void> {
    // A changed list already rebuilt the connections; otherwise rebuild them now.
    if (!(await this.sessionMcp.syncUserServers())) await this.sessionMcp.rebuild();
    await this.keepAliveWhile(() => this.sessionMcp.ensureConnected());
  }

  /** Reconnects one server at once: its owner just signed in to it (src/http/oauth.ts). */
  async reconnectServer(name: string): Promise<string | undefined> {
    return this.keepAliveWhile(() => this.sessionMcp.reconnectServer(name));
  }

  /** The resources, templates or prompts of this session's enabled servers (connecting first when needed). */
  async catalog(kind: CatalogKind): Promise<CatalogList> {
    await this.connected();
    return catalogList(this.sessionMcp, kind);
  }

  async complete(input: CompleteInput): Promise<CatalogOutcome<Completion>> {
    await this.connected();
    return this.keepAliveWhile(() => catalogComplete(this.sessionAttachments, this.sessionMcp, input));
  }

  /** The session's MCP connections opened (a server that failed is reported by its state, not thrown). */
  private connected(): Promise<void> {
    return this.keepAliveWhile(() => this.sessionMcp.ensureConnected()).catch(() => undefined);
  }

  /** The newest window of the history, or the one before entry `before` (the page scrolled up). */
  getHistory(before?: number): HistoryPage {
    return historyPage(this.sessionStore, before);
  }

  /** The conversation's current path whole, for the account's export. */
  exportHistory(): { entries: HistoryEntry[]; usage: Record<string, Usage> } {
    return wholeHistory(this.sessionStore);
  }

  /** One history entry whole (a window sends big results shortened); undefined if not on the current path. */
  getEntry(seq: number): HistoryEntry | undefined {
    return fullEntry(this.sessionStore, seq);
  }

  /** A new session's history from an export (src/http/import.ts): written only into an empty session, then made searchable. */
  async importHistory(entries: ImportedEntry[]): Promise<{ imported: number } | { refused: string }> {
    const parsed = ImportedEntriesSchema.safeParse(entries);
    if (!parsed.success) return { refused: "the entries are not valid" };
    if (this.sessionStore.count() > 0) return { refused: "the session is not empty" };
    const imported = importInto(this.sessionStore, parsed.data);
    this.searchFeed.flush();
    await this.searchFeed.settled();
    return { imported };
  }

  async deleteSession(): Promise<void> {
    // The owner stays recorded: a deleted id can never be claimed by someone else.
    await this.sessionOwner.unlist();
    this.sessionTurns.cancel(undefined, "session deleted");
    this.appCalls.cancelAll("session deleted");
    await this.sessionAttachments.forget(this.mcpCache?.host());
    await this.sessionFiles.forget();
    await this.mcpCache?.close();
    this.mcpCache = undefined;
    for (const connection of this.getConnections()) connection.close(1000, "session deleted");
    this.sessionStore.clear();
    this.sessionApprovals.forget();
    forgetServerChoice(this.sessionStore);
    this.sessionModel.forget();
  }
}
