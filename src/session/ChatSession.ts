// The chat session Durable Object (one per session id) on agents' `Agent`, which
// gives WebSocket hibernation, connection tracking and keep-alive for long turns.
// It keeps history in SQLite, replays it to every (re)connecting socket,
// broadcasts each event to all sockets, runs one turn at a time, and owns the
// session's MCP connections. Agent protocol frames are switched off: the page
// speaks only the protocol of protocol.ts.
import { Agent, type Connection, type ConnectionContext } from "agents";
import { readSettings, type Env, type Settings } from "../env";
import { createProvider, type ProviderSelection } from "../llm/select";
import type { LlmProvider } from "../llm/provider";
import { EdgehostError } from "../mcp/errors";
import { errorMessage } from "../mcp/logger";
import { runTurn } from "../orchestrator/turn";
import { HistoryStore, type NewEntry } from "./history";
import { PendingAnswers } from "./pending";
import { parseClientFrame, type ClientMessage, type HistoryEntry, type ServerMessage } from "./protocol";
import { SessionMcp } from "./session-mcp";
import { callDirect, serversInfo } from "./direct-calls";
import type { DirectCallOutcome, ServerInfo } from "../http/schemas";
import type { HostMetrics } from "../mcp/host";
import { userAccount } from "../users/account";
import type { SpendDecision, SpendKind } from "../users/UserAccount";

const TURN_KEY = "runningTurn";
const ALWAYS_KEY = "alwaysAllowed";
const OWNER_KEY = "owner";
const LISTED_KEY = "listed";
/** Set by the Worker on the upgrade request it builds itself; a client cannot send it through. */
export const SESSION_USER_HEADER = "x-edgehost-user";

export type Admission = "owner" | "claimed" | "denied";

export class ChatSession extends Agent<Env> {
  private store?: HistoryStore;
  private settingsCache?: Settings;
  private mcpCache?: SessionMcp;
  private turn?: { id: string; controller: AbortController };
  private selected?: ProviderSelection;
  private settingProblems: string[] = [];
  readonly approvals = new PendingAnswers<boolean>();

  private get history(): HistoryStore {
    this.store ??= new HistoryStore(this.ctx.storage.sql);
    return this.store;
  }

  private get settings(): Settings {
    if (!this.settingsCache) {
      const { settings, problems } = readSettings(this.env);
      this.settingsCache = settings;
      this.settingProblems = problems;
      // Names only: a value may be a secret.
      for (const problem of problems) console.warn(`edgehost: ${problem}`);
    }
    return this.settingsCache;
  }

  private get sessionMcp(): SessionMcp {
    this.mcpCache ??= new SessionMcp({
      env: this.env,
      settings: this.settings,
      store: this.history,
      broadcast: (message) => {
        this.send(message);
        if (message.type === "servers") this.watchUnavailable();
      },
      record: (entry) => this.record(entry),
      approvals: this.approvals,
      provider: () => this.provider(),
    });
    return this.mcpCache;
  }

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // agents wraps onMessage to answer its own frames (`rpc`, `cf_agent_*` state writes)
    // before ours sees them: a client could call methods or write the Agent's state.
    // This session speaks only protocol.ts, so every frame goes straight to our parser,
    // which parses once and decides on the parsed `type`: no escape can smuggle one in.
    this.onMessage = (connection: Connection, message: string | ArrayBuffer) => this.handleFrame(connection, message);
  }

  override shouldSendProtocolMessages(): boolean {
    return false;
  }

  override async onStart(): Promise<void> {
    // Heartbeats answered by the runtime itself, so they never wake the object.
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
    const interrupted = this.history.getSetting<string>(TURN_KEY);
    if (interrupted) {
      // The object was evicted or restarted mid-turn: say so instead of leaving the turn open.
      this.history.setSetting(TURN_KEY, undefined);
      const entries = this.history.entries().filter((e) => e.turnId === interrupted);
      for (const call of entries.filter((e) => e.kind === "tool_call")) {
        if (entries.some((e) => e.kind === "tool_result" && e.callId === call.callId)) continue;
        this.record({ turnId: interrupted, kind: "tool_result", callId: call.callId, server: call.server, tool: call.tool, error: "The call was interrupted (the session restarted).", durationMs: 0 });
      }
      this.record({ turnId: interrupted, kind: "error", text: "This turn was interrupted (the session restarted). Send your message again." });
    }
  }

  override onConnect(connection: Connection, context: ConnectionContext): void {
    // The Worker admitted this user before forwarding the upgrade; checked again here so
    // a socket is never attached to a session its user does not own.
    const user = context.request.headers.get(SESSION_USER_HEADER);
    if (!user || user !== this.owner()) {
      connection.close(1008, "not found");
      return;
    }
    connection.setState({ user });
    const selected = this.selection();
    const model = "provider" in selected ? { provider: selected.provider.name, model: selected.provider.model } : null;
    this.sendTo(connection, {
      type: "connection",
      sessionId: this.name,
      model,
      notice: "missing" in selected ? selected.missing : undefined,
      toolApproval: this.settings.TOOL_APPROVAL,
    });
    this.sendTo(connection, { type: "history", entries: this.history.entries() });
    // Started before the status is sent: the servers then show as "connecting", not as absent.
    const connecting = this.sessionMcp.ensureConnected();
    this.sendTo(connection, { type: "servers", servers: this.sessionMcp.status() });
    // Questions still open (a reload mid-approval) are asked again on the new socket.
    this.sessionMcp.resendOpenQuestions((message) => this.sendTo(connection, message));
    // A socket that (re)connects during a turn learns it is running.
    if (this.turn) this.sendTo(connection, { type: "turn_start", turnId: this.turn.id });
    void this.keepAliveWhile(() => connecting);
  }

  override onMessage(connection: Connection, raw: string | ArrayBuffer): Promise<void> {
    return this.handleFrame(connection, raw);
  }

  private async handleFrame(connection: Connection, raw: string | ArrayBuffer): Promise<void> {
    try {
      const parsed = parseClientFrame(raw);
      if (!parsed.ok) return this.sendTo(connection, { type: "error", code: parsed.code, message: parsed.message });
      await this.handle(connection, parsed.message);
    } catch (error) {
      this.sendTo(connection, { type: "error", code: error instanceof EdgehostError ? error.code : "internal", message: error instanceof EdgehostError ? error.message : "internal error" });
    }
  }

  override async onClose(): Promise<void> {
    // The last page went away and nothing runs: end the MCP sessions rather than leave
    // them open at the servers (the bridge would keep them until its idle expiry).
    const open = [...this.getConnections()].filter((c) => c.readyState === WebSocket.OPEN);
    if (open.length > 0 || this.turn || !this.mcpCache) return;
    const mcp = this.mcpCache;
    this.mcpCache = undefined;
    await this.keepAliveWhile(() => mcp.close());
  }

  private async handle(connection: Connection, message: ClientMessage): Promise<void> {
    switch (message.type) {
      case "message":
        return this.startTurn(connection, message.text);
      case "cancel":
        if (this.turn && (!message.turnId || message.turnId === this.turn.id)) this.turn.controller.abort("cancelled by the user");
        return;
      case "approval":
        if (!this.fromOwner(connection)) return;
        if (message.approved && message.remember) this.remember(message.callId);
        if (!this.approvals.answer(message.callId, message.approved)) {
          this.sendTo(connection, { type: "error", code: "unknown_approval", message: `no pending approval ${message.callId}` });
          return;
        }
        this.send({ type: "approval_resolved", callId: message.callId, approved: message.approved });
        return;
      case "elicitation_response":
        if (!this.fromOwner(connection)) return;
        if (!this.sessionMcp.answerElicitation(message)) this.sendTo(connection, { type: "error", code: "unknown_elicitation", message: `no pending elicitation ${message.requestId}` });
        return;
      case "set_servers":
        this.sessionMcp.setEnabled(message.enabled);
        this.send({ type: "servers", servers: this.sessionMcp.status() });
        return;
      case "ping":
        this.sendTo(connection, { type: "pong" });
        return;
      case "reset":
        this.turn?.controller.abort("reset");
        this.history.clear();
        this.send({ type: "history", entries: [] });
        return;
    }
  }

  private async startTurn(connection: Connection, text: string): Promise<void> {
    if (this.turn) {
      // One turn at a time; a message during a turn is rejected, not queued (README).
      return this.sendTo(connection, { type: "error", code: "turn_in_progress", message: "A turn is still running: wait for it to end or cancel it." });
    }
    // Claimed before the first await: a second message arriving meanwhile sees a turn.
    const turnId = crypto.randomUUID();
    const controller = new AbortController();
    this.turn = { id: turnId, controller };
    let spend: SpendDecision;
    try {
      spend = await this.spend("turn");
    } catch (error) {
      this.turn = undefined;
      throw error;
    }
    if (!spend.ok) {
      this.turn = undefined;
      return this.sendTo(connection, { type: "error", code: spend.code, message: spend.message });
    }
    this.record({ turnId, kind: "user", text });
    if (this.history.getSetting<boolean>(LISTED_KEY)) void this.account()?.touchSession(this.name, text).catch(() => undefined);
    // Reported once per wake-up, in the conversation where the user sees it.
    for (const problem of this.settingProblems.splice(0)) this.record({ turnId, kind: "notice", text: `Configuration: ${problem}.` });
    const provider = this.provider();
    if (!provider) {
      this.turn = undefined;
      const selected = this.selection();
      this.record({ turnId, kind: "notice", text: "missing" in selected ? selected.missing : "No model is configured." });
      this.send({ type: "turn_end", turnId, reason: "no_model" });
      return;
    }
    this.history.setSetting(TURN_KEY, turnId);
    this.send({ type: "turn_start", turnId });
    void this.keepAliveWhile(() => this.runTurn(turnId, provider, controller));
  }

  private async runTurn(turnId: string, provider: LlmProvider, controller: AbortController): Promise<void> {
    let reason: "complete" | "cancelled" | "error" | "max_steps" = "error";
    let usage: { inputTokens: number; outputTokens: number } | undefined;
    try {
      await this.sessionMcp.prepareTurn(turnId);
      const outcome = await runTurn({
        turnId,
        provider,
        host: this.sessionMcp.host(),
        tools: () => this.sessionMcp.tools(),
        history: () => this.history.entries(),
        record: (entry) => this.record(entry),
        emit: (message) => this.send(message),
        approve: (call) => this.sessionMcp.approve(turnId, call, controller.signal),
        signal: controller.signal,
        limits: { maxSteps: this.settings.MAX_STEPS, tokenBudget: this.settings.HISTORY_TOKEN_BUDGET, toolResultChars: this.settings.TOOL_RESULT_CHARS },
        systemExtra: this.settings.SYSTEM_PROMPT,
      });
      reason = outcome.reason;
      usage = outcome.usage;
      if (reason === "cancelled") this.record({ turnId, kind: "notice", text: "Cancelled." });
    } catch (error) {
      const message = error instanceof EdgehostError ? error.message : `Unexpected error: ${errorMessage(error)}`;
      this.record({ turnId, kind: "error", text: message });
      this.send({ type: "error", code: error instanceof EdgehostError ? error.code : "internal", message, turnId });
    } finally {
      this.turn = undefined;
      this.history.setSetting(TURN_KEY, undefined);
      this.send({ type: "turn_end", turnId, reason, usage });
      if (usage) await this.account()?.addUsage(usage.inputTokens + usage.outputTokens).catch(() => undefined);
    }
  }

  private hasOpenSockets(): boolean {
    return [...this.getConnections()].some((c) => c.readyState === WebSocket.OPEN);
  }

  /**
   * While a page is open, an unavailable server is retried in the background (on the
   * host's backoff, through an alarm that survives hibernation), so the panel turns
   * ready when the server is back rather than at the next turn. Nobody watching: no retries.
   */
  private watchUnavailable(): void {
    if (!this.mcpCache || !this.hasOpenSockets()) return;
    const waits = this.mcpCache.host().servers().filter((s) => s.state === "unavailable").map((s) => s.retryAfterMs ?? 0);
    if (waits.length === 0) return;
    const seconds = Math.max(1, Math.ceil(Math.min(...waits) / 1000));
    void this.schedule(seconds, "retryUnavailable", undefined, { idempotent: true }).catch((error: unknown) => console.warn(`edgehost: could not schedule a server retry: ${errorMessage(error)}`));
  }

  /** Alarm callback (see watchUnavailable); the reconnect broadcasts any state change. */
  async retryUnavailable(): Promise<void> {
    if (!this.mcpCache || !this.hasOpenSockets()) return;
    await this.mcpCache.host().reconnect();
    this.watchUnavailable();
  }

  private owner(): string | undefined {
    return this.history.getSetting<string>(OWNER_KEY);
  }

  private fromOwner(connection: Connection): boolean {
    const state = connection.state as { user?: unknown } | null;
    return typeof state?.user === "string" && state.user === this.owner();
  }

  private account() {
    const owner = this.owner();
    return owner ? userAccount(this.env, owner) : undefined;
  }

  /** Counts a turn or direct call against the owner's limits, kept in their account across sessions and restarts. */
  private async spend(kind: SpendKind): Promise<SpendDecision> {
    const account = this.account();
    if (!account) return { ok: false, code: "rate_limited", message: "This session has no owner.", retryAfterMs: 0 };
    const limits = { perMinute: this.settings.RATE_LIMIT_PER_MINUTE, burst: this.settings.RATE_LIMIT_BURST, dailyTokens: this.settings.DAILY_TOKEN_BUDGET };
    return account.admit(kind, limits);
  }

  private selection(): ProviderSelection {
    this.selected ??= createProvider(this.env, { retry: { initialMs: this.settings.LLM_RETRY_INITIAL_MS } });
    return this.selected;
  }

  private provider(): LlmProvider | undefined {
    const selected = this.selection();
    return "provider" in selected ? selected.provider : undefined;
  }

  private remember(callId: string): void {
    const tool = this.sessionMcp.approvalTool(callId);
    if (tool) this.rememberTool(tool);
  }

  private rememberTool(tool: string): void {
    const always = new Set(this.history.getSetting<string[]>(ALWAYS_KEY) ?? []);
    always.add(tool);
    this.history.setSetting(ALWAYS_KEY, [...always]);
  }

  private record(entry: NewEntry): HistoryEntry {
    const saved = this.history.append(entry);
    this.send({ type: "entry", entry: saved });
    return saved;
  }

  private send(message: ServerMessage): void {
    const frame = JSON.stringify(message);
    for (const connection of this.getConnections()) {
      // getConnections() can include sockets still closing.
      if (connection.readyState === WebSocket.OPEN) connection.send(frame);
    }
  }

  private sendTo(connection: Connection, message: ServerMessage): void {
    if (connection.readyState === WebSocket.OPEN) connection.send(JSON.stringify(message));
  }

  // ---- RPC for the HTTP API (the Worker checked the caller's identity; each call is checked against the owner) ----

  /** Whether `user` owns this session; the first user to open it becomes its owner. */
  async admit(user: string, options: { claim: boolean; listed?: boolean }): Promise<Admission> {
    const owner = this.owner();
    if (owner !== undefined) return owner === user ? "owner" : "denied";
    if (!options.claim) return "denied";
    this.history.setSetting(OWNER_KEY, user);
    this.history.setSetting(LISTED_KEY, options.listed ?? true);
    if (options.listed ?? true) await userAccount(this.env, user).addSession(this.name);
    return "claimed";
  }

  async serversInfo(): Promise<ServerInfo[]> {
    return serversInfo(this.sessionMcp);
  }

  metricsInfo(): HostMetrics {
    return this.sessionMcp.host().metrics();
  }

  async callTool(name: string, args: Record<string, unknown>, approval: { approved: boolean; remember: boolean }): Promise<DirectCallOutcome> {
    const spend = await this.spend("call");
    if (!spend.ok) return { ok: false, status: 429, body: { error: { code: spend.code, message: spend.message, retryAfterMs: "retryAfterMs" in spend ? spend.retryAfterMs : undefined } } };
    if (approval.approved && approval.remember) this.rememberTool(name);
    return this.keepAliveWhile(() => callDirect(this.sessionMcp, (entry) => this.record(entry), name, args, approval.approved));
  }

  modelInfo(): { model: { provider: string; model: string } | null; notice?: string } {
    const selected = this.selection();
    return "provider" in selected ? { model: { provider: selected.provider.name, model: selected.provider.model } } : { model: null, notice: selected.missing };
  }

  getHistory(): HistoryEntry[] {
    return this.history.entries();
  }

  async deleteSession(): Promise<void> {
    // The owner stays recorded: a deleted id can never be claimed by someone else.
    if (this.history.getSetting<boolean>(LISTED_KEY)) await this.account()?.removeSession(this.name);
    this.turn?.controller.abort("session deleted");
    await this.mcpCache?.close();
    this.mcpCache = undefined;
    for (const connection of this.getConnections()) connection.close(1000, "session deleted");
    this.history.clear();
    this.history.setSetting(ALWAYS_KEY, undefined);
    this.history.setSetting("enabledServers", undefined);
  }
}
