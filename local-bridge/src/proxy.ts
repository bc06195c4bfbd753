// One configured stdio server shared by every HTTP session: the bridge is an MCP
// client to the child and an MCP server to each session. Request ids and progress
// tokens are remapped so sessions never see each other's traffic; responses,
// progress and server-initiated requests go back to the session they belong to.
import type { ClientCapabilities, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "@edgehost/shared/logger";
import type { StdioServerConfig } from "@edgehost/shared/mcp-config/config";
import { ServerStats } from "@edgehost/shared/metrics";
import { bridgeError, rpcError, RPC, type BridgeErrorData } from "@edgehost/shared/rpc";
import type { ChildProcess } from "./child";
import { AskGate, gated } from "./ask-gate";
import { ChildKeeper, NoChild, type ProxyOptions } from "./child-keeper";
import type { Downstream, Pending } from "./downstream";
import { SUPPORTED_PROTOCOL_VERSIONS, isErrorResponse, isNotification, isRequest, isResponse } from "./messages";
import { type CacheFacts, cacheHint } from "./modern-cache";
import { lineOwner, logRecipients } from "./modern-log";
import { ToolHeaderIndex } from "./modern-params";
import { ServerRequests } from "./server-requests";
import { TaskOwners } from "./task-owners";

export type { ProxyOptions, ProxyState } from "./child-keeper";
export type { Downstream } from "./downstream";

export class ServerProxy extends ChildKeeper {
  readonly stats: ServerStats;
  readonly sessions = new Map<string, Downstream>();
  /** When a 2026 request (which leaves no session behind) last came: a per-user child is in use until the idle timeout after it. */
  lastUsed = 0;

  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly bySessionRequest = new Map<string, number>();
  /** The child's tools' `x-mcp-header` marks, which 2026 calls' `Mcp-Param-*` headers are checked against (modern-params.ts). */
  readonly toolHeaders = new ToolHeaderIndex();
  /** Holds a call that can be asked while another's questions could be taken for its own (ask-gate.ts). */
  readonly gate = new AskGate(
    () => this.pending.values(),
    (who) => this.sessions.has(who.id),
  );
  /** What the child asks its clients (server-requests.ts). */
  private readonly asks: ServerRequests;
  private readonly subscriptions = new Map<string, Set<string>>();
  /** Whose tasks the child runs: a shared child's task store would show everyone's (task-owners.ts). */
  private readonly tasks = new TaskOwners();

  constructor(config: StdioServerConfig, options: ProxyOptions) {
    super(config, options);
    this.stats = options.stats ?? new ServerStats();
    const proxy = this;
    this.asks = new ServerRequests({
      name: this.name,
      sessions: this.sessions,
      inFlight: () => [...this.pending.values()],
      sendToChild: (message) => this.sendToChild(message),
      logger: options.logger,
      // Read at each request: mcp.json's roots may be changed while the bridge runs.
      get roots() {
        return proxy.config.roots;
      },
      owner: options.user,
      asking: () => this.gate.wake(),
      asked: () => this.gate.asked(),
    });
  }

  /**
   * Roots only while a session that declared them is attached: a server told the
   * client has roots asks for them right after initialize, and with nobody to answer
   * it logs a failure at every start (server-filesystem: "Failed to request roots").
   */
  protected childCapabilities(): ClientCapabilities {
    // Roots written in mcp.json: the bridge answers roots/list itself, whoever is attached.
    if (this.config.roots) return { ...this.options.clientCapabilities, roots: { listChanged: true } };
    const declared = [...this.sessions.values()].find((s) => s.clientCapabilities.roots !== undefined);
    return declared ? { ...this.options.clientCapabilities, roots: { listChanged: true } } : this.options.clientCapabilities;
  }

  protected childReady(): void {
    this.toolHeaders.forget();
    // A restarted child knows nothing of earlier subscriptions: renew them.
    for (const uri of this.subscriptions.keys()) this.sendToChild({ jsonrpc: "2.0", id: this.nextId++, method: "resources/subscribe", params: { uri } });
  }

  protected childGone(data: BridgeErrorData, message: string): void {
    for (const [childId, pending] of this.pending) {
      this.finish(childId, pending, bridgeError(pending.id, data, message));
    }
    this.asks.childGone();
  }

  // ---- messages from a session ----

  async fromSession(session: Downstream, message: JSONRPCMessage): Promise<void> {
    if (isRequest(message)) return this.request(session, message);
    if (isNotification(message)) return this.notification(session, message);
    if (isResponse(message)) return this.asks.answer(session, message);
  }

  private async request(session: Downstream, request: JSONRPCRequest): Promise<void> {
    if (request.method === "ping") {
      session.deliver({ jsonrpc: "2.0", id: request.id, result: {} }, request.id);
      return;
    }
    // Known before a (re)start, so a child started for this session hears of its roots.
    if (request.method === "initialize") session.clientCapabilities = (request.params as { capabilities?: ClientCapabilities } | undefined)?.capabilities ?? {};
    let child: ChildProcess;
    try {
      child = await this.ensureChild();
    } catch (error) {
      const data: BridgeErrorData = error instanceof NoChild ? error.data : { kind: "server_unavailable", server: this.name, reason: errorMessage(error) };
      session.deliver(
        bridgeError(request.id, data, error instanceof NoChild ? error.message : `MCP server "${this.name}" is unavailable: ${data.reason}`),
        request.id,
      );
      return;
    }
    const notYours = this.tasks.refusal(session.user, request);
    if (notYours) return void session.deliver(notYours, request.id);
    if (request.method === "initialize") {
      const result = this.initializeResult(request, child);
      session.protocolVersion = result.protocolVersion;
      session.deliver({ jsonrpc: "2.0", id: request.id, result }, request.id);
      return;
    }
    if (gated(session, request)) this.gate.enter(session, () => this.forward(session, request, child));
    else this.forward(session, request, child);
  }

  private forward(session: Downstream, request: JSONRPCRequest, child: ChildProcess): void {
    const childId = this.nextId++;
    const params = request.params ? { ...request.params } : undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    const progressToken = meta?.progressToken as string | number | undefined;
    if (params && meta && progressToken !== undefined) params._meta = { ...meta, progressToken: childId };
    // A 2026 call's answer says how long it may be kept: decided now, from what the bridge can vouch for.
    if (session.cacheHint !== undefined) session.cacheHint = cacheHint(request.method, params, this.cacheFacts(child));
    const tool = request.method === "tools/call" ? String((params as { name?: unknown } | undefined)?.name ?? "") : undefined;
    this.pending.set(childId, { session, id: request.id, method: request.method, tool, started: performance.now(), progressToken });
    this.bySessionRequest.set(requestKey(session.id, request.id), childId);
    if (request.method === "resources/subscribe" || request.method === "resources/unsubscribe") this.trackSubscription(session, request);
    if (!this.sendToChild({ ...request, id: childId, params })) {
      const data: BridgeErrorData = { kind: "server_unavailable", server: this.name, reason: "could not be sent the request (its input is closed)" };
      this.finish(childId, this.pending.get(childId), bridgeError(request.id, data, `could not forward the request to MCP server "${this.name}"`));
    }
  }

  private cacheFacts(child: ChildProcess): CacheFacts {
    return {
      capabilities: (child.info?.capabilities ?? {}) as Record<string, unknown>,
      live: this.state === "ready",
      perUser: this.options.user !== undefined,
      subscribed: (uri) => this.subscriptions.has(uri),
    };
  }

  private initializeResult(request: JSONRPCRequest, child: ChildProcess): Record<string, unknown> & { protocolVersion?: string } {
    const params = (request.params ?? {}) as { protocolVersion?: string };
    const info = child.info;
    const requested = params.protocolVersion ?? "";
    // Never promise a newer protocol than the child itself speaks.
    const version = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) && info && requested <= info.protocolVersion ? requested : info?.protocolVersion;
    return { protocolVersion: version, capabilities: info?.capabilities ?? {}, serverInfo: info?.serverInfo, instructions: info?.instructions };
  }

  private notification(session: Downstream, notification: JSONRPCNotification): void {
    if (notification.method === "notifications/initialized") return;
    if (notification.method === "notifications/cancelled") {
      const requestId = (notification.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.cancel(session, requestId, String(notification.params?.reason ?? "cancelled by the client"));
      return;
    }
    this.sendToChild(notification);
  }

  /** Cancels a session's request at the child and ends its HTTP exchange. */
  cancel(session: Downstream, requestId: RequestId, reason: string): void {
    const childId = this.bySessionRequest.get(requestKey(session.id, requestId));
    if (childId === undefined) return;
    const pending = this.pending.get(childId);
    this.sendToChild({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: childId, reason } });
    this.finish(childId, pending, rpcError(requestId, RPC.requestCancelled, "Request cancelled"));
  }

  /** A session went away: cancel what it left running and forget its subscriptions. */
  detach(session: Downstream): void {
    this.sessions.delete(session.id);
    for (const [childId, pending] of this.pending) {
      if (pending.session === session) {
        this.sendToChild({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: childId, reason: "session closed" } });
        this.finish(childId, pending, undefined);
      }
    }
    for (const [uri, sessions] of this.subscriptions) {
      sessions.delete(session.id);
      if (sessions.size === 0) {
        this.subscriptions.delete(uri);
        this.sendToChild({ jsonrpc: "2.0", id: this.nextId++, method: "resources/unsubscribe", params: { uri } });
      }
    }
  }

  // ---- messages from the child ----

  protected fromChild(message: JSONRPCMessage): void {
    if (isResponse(message)) {
      const childId = typeof message.id === "number" ? message.id : Number.NaN;
      const pending = this.pending.get(childId);
      if (pending) this.finish(childId, pending, { ...message, id: pending.id });
      return;
    }
    if (isRequest(message)) return this.asks.fromChild(message);
    if (isNotification(message)) this.childNotification(message);
  }

  private finish(childId: number, pending: Pending | undefined, response: JSONRPCMessage | undefined): void {
    this.pending.delete(childId);
    if (!pending) return;
    this.bySessionRequest.delete(requestKey(pending.session.id, pending.id));
    const failed = !response || isErrorResponse(response) || (isResponse(response) && "result" in response && response.result.isError === true);
    this.stats.record(pending.tool, performance.now() - pending.started, failed ? "error" : "ok");
    if (pending.method === "tools/list" && response && "result" in response) this.toolHeaders.learn(response.result);
    if (response) pending.session.deliver(this.tasks.seen(pending.session.user, pending.method, response), pending.id);
    this.gate.wake();
  }

  private childNotification(notification: JSONRPCNotification): void {
    const params = notification.params as Record<string, unknown> | undefined;
    if (notification.method === "notifications/progress") {
      const pending = this.pending.get(Number(params?.progressToken));
      if (pending?.progressToken !== undefined) {
        pending.session.deliver({ ...notification, params: { ...params, progressToken: pending.progressToken } }, pending.id);
      }
      return;
    }
    if (notification.method === "notifications/cancelled") return this.asks.withdrawn(notification);
    // resources/updated names only a URI the session subscribed to, and list_changed says
    // only that a list changed: neither carries a user's data, so they go to every
    // subscriber / session, whichever user's call caused them.
    if (notification.method === "notifications/resources/updated") {
      for (const sessionId of this.subscriptions.get(String(params?.uri)) ?? []) this.sessions.get(sessionId)?.deliver(notification);
      return;
    }
    if (notification.method === "notifications/message") return this.logLine(notification);
    if (notification.method === "notifications/tasks/status") return this.tasks.tell(notification, this.sessions.values());
    if (notification.method === "notifications/tools/list_changed") this.toolHeaders.forget();
    // list_changed and anything else concern every session (a 2026 call takes none of them by deliver).
    for (const session of this.sessions.values()) session.deliver(notification);
  }

  /**
   * A log line may carry a user's data: only the one user whose calls are in flight (or
   * a per-user child's user) gets it (modern-log.ts lineOwner); otherwise nobody does.
   */
  private logLine(notification: JSONRPCNotification): void {
    const inFlight = [...this.pending.values()];
    const user = lineOwner(inFlight, this.options.user);
    if (user === undefined) {
      // Never the line itself: it may be any user's data.
      const reason = inFlight.length === 0 ? "no call running" : "calls of several users running";
      this.options.logger.debug("server log line withheld", { server: this.name, reason });
      return;
    }
    // 2026 calls have no session: a line goes on the response stream of the calls in flight that asked for it.
    for (const call of logRecipients(inFlight, this.options.user)) call.session.logLine?.(notification);
    // A 2025 session with a call in flight gets the line on that call's stream, else on its own.
    const related = new Map(inFlight.filter((call) => !call.session.logLine).map((call) => [call.session.id, call.id] as const));
    for (const session of this.sessions.values()) {
      if (session.user === user && !session.logLine) session.deliver(notification, related.get(session.id));
    }
  }

  private trackSubscription(session: Downstream, request: JSONRPCRequest): void {
    const uri = String((request.params as { uri?: unknown } | undefined)?.uri ?? "");
    const sessions = this.subscriptions.get(uri) ?? new Set<string>();
    if (request.method === "resources/subscribe") sessions.add(session.id);
    else sessions.delete(session.id);
    if (sessions.size > 0) this.subscriptions.set(uri, sessions);
    else this.subscriptions.delete(uri);
  }

  async stop(timeoutMs: number): Promise<{ killed: boolean }> {
    this.state = "stopped";
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
    return this.stopChild(timeoutMs);
  }

  override health(): Record<string, unknown> {
    return { ...super.health(), sessions: this.sessions.size };
  }
}

function requestKey(sessionId: string, id: RequestId): string {
  return `${sessionId}\u0000${typeof id}\u0000${id}`;
}
