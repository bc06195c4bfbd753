// One configured stdio server shared by every HTTP session: the bridge is an MCP
// client to the child and an MCP server to each session. Request ids and progress
// tokens are remapped so sessions never see each other's traffic; responses,
// progress and server-initiated requests go back to the session they belong to.
import type {
  ClientCapabilities,
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCResultResponse,
  JSONRPCRequest,
  RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { backoffDelay } from "@edgehost/shared/backoff";
import type { StdioServerConfig } from "@edgehost/shared/mcp-config/config";
import { errorMessage, type Logger } from "@edgehost/shared/logger";
import { ServerStats } from "@edgehost/shared/metrics";
import { ChildProcess, describeExit, type ChildOptions, type ExitInfo } from "./child";
import { SUPPORTED_PROTOCOL_VERSIONS, isErrorResponse, isNotification, isRequest, isResponse } from "./messages";
import { bridgeError, rpcError, RPC, type BridgeErrorData } from "@edgehost/shared/rpc";
import { routeServerRequest } from "./user-scope";

export type ProxyState = "starting" | "ready" | "unavailable" | "stopped";

/** A connected HTTP session (Streamable HTTP or legacy SSE), as the proxy sees it. */
export interface Downstream {
  readonly id: string;
  /** Whose session this is (user-scope.ts): the Worker's user id, or "" for a local client. */
  readonly user: string;
  clientCapabilities: ClientCapabilities;
  /** Negotiated at initialize (Streamable HTTP sessions use it to decide on priming events). */
  protocolVersion?: string;
  /** Sends to the client; `related` is the session's own request the message belongs to. False if undeliverable. */
  deliver(message: JSONRPCMessage, related?: RequestId): boolean;
  close(): void;
}

interface Pending {
  session: Downstream;
  id: RequestId;
  method: string;
  tool?: string;
  started: number;
  progressToken?: string | number;
}

interface ServerRequest {
  childId: RequestId;
  sessions: Set<string>;
}

/** Why a request found no running child; becomes a bridge error (rpc.ts) for the session. */
class NoChild extends Error {
  constructor(
    readonly data: BridgeErrorData,
    message: string,
  ) {
    super(message);
  }
}

const CAPABILITY_FOR: Record<string, keyof ClientCapabilities> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

export interface ProxyOptions extends Omit<ChildOptions, "logger"> {
  logger: Logger;
  backoff: { initialMs: number; maxMs: number };
  now?: () => number;
  /** The one user of a per-user child (`"isolation": "user"`); absent: a child shared by everyone. */
  user?: string;
  /** Shared by a server's per-user children, so /metrics counts the server's calls once. */
  stats?: ServerStats;
}

export class ServerProxy {
  state: ProxyState = "starting";
  /**
   * The trace id of the request last forwarded here (W3C `traceparent`, from the Worker's
   * turn). A child's stderr is not tied to a request: its lines name the latest trace,
   * which is the turn's while one turn at a time uses the child.
   */
  trace?: string;
  restarts = 0;
  lastError?: string;
  child?: ChildProcess;
  readonly stats: ServerStats;
  readonly sessions = new Map<string, Downstream>();
  /** When a 2026 request (which leaves no session behind) last came: a per-user child is in use until the idle timeout after it. */
  lastUsed = 0;

  private nextId = 1;
  private nextServerRequest = 1;
  private attempts = 0;
  private nextStartAt = 0;
  private launching?: Promise<ChildProcess>;
  private readonly pending = new Map<number, Pending>();
  private readonly bySessionRequest = new Map<string, number>();
  private readonly serverRequests = new Map<string, ServerRequest>();
  private readonly subscriptions = new Map<string, Set<string>>();
  private readonly now: () => number;

  constructor(
    /** Replaced only by setRoots (a reload that changed nothing else). */
    public config: StdioServerConfig,
    private readonly options: ProxyOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.stats = options.stats ?? new ServerStats();
  }

  get name(): string {
    return this.config.name;
  }

  /** First start: rejects with the reason (and stderr tail) so the bridge can refuse to start. */
  async start(): Promise<void> {
    await this.launch();
  }

  /** The running child, restarting a crashed one once its backoff has passed. */
  ensureChild(): Promise<ChildProcess> {
    if (this.state === "ready" && this.child) return Promise.resolve(this.child);
    if (this.launching) return this.launching;
    if (this.state === "stopped")
      return Promise.reject(new NoChild({ kind: "server_stopped", server: this.name, reason: "is stopped" }, `MCP server "${this.name}" is stopped`));
    const wait = this.nextStartAt - this.now();
    if (wait > 0) {
      const last = this.lastError ?? "not running";
      const next = `next restart in ${Math.ceil(wait / 100) / 10} s`;
      return Promise.reject(
        new NoChild(
          { kind: "server_unavailable", server: this.name, reason: `${last}; ${next}`, retryAfterMs: wait },
          `MCP server "${this.name}" is unavailable (${last}); ${next}`,
        ),
      );
    }
    this.restarts++;
    return this.launch().catch((error: unknown) => {
      const reason = `could not start: ${errorMessage(error)}`;
      throw new NoChild({ kind: "server_unavailable", server: this.name, reason, retryAfterMs: this.retryAfterMs() }, `MCP server "${this.name}" ${reason}`);
    });
  }

  /** Milliseconds until a crashed child may be started again. */
  private retryAfterMs(): number {
    return Math.max(0, this.nextStartAt - this.now());
  }

  private launch(): Promise<ChildProcess> {
    const child = new ChildProcess(this.config, { ...this.options, clientCapabilities: this.childCapabilities(), trace: () => this.trace });
    child.onmessage = (message) => this.fromChild(message);
    this.state = "starting";
    const launching = child
      .start()
      .then(() => {
        child.onexit = (exit) => this.childExited(child, exit);
        this.child = child;
        this.state = "ready";
        this.attempts = 0;
        this.lastError = undefined;
        this.options.logger.info("server ready", { server: this.name, pid: child.pid });
        // A restarted child knows nothing of earlier subscriptions: renew them.
        for (const uri of this.subscriptions.keys()) this.sendToChild({ jsonrpc: "2.0", id: this.nextId++, method: "resources/subscribe", params: { uri } });
        return child;
      })
      .catch((error: unknown) => {
        this.markUnavailable(errorMessage(error));
        throw error;
      })
      .finally(() => {
        this.launching = undefined;
      });
    this.launching = launching;
    return launching;
  }

  /**
   * Roots only while a session that declared them is attached: a server told the
   * client has roots asks for them right after initialize, and with nobody to answer
   * it logs a failure at every start (server-filesystem: "Failed to request roots").
   */
  private childCapabilities(): ClientCapabilities {
    // Roots written in mcp.json: the bridge answers roots/list itself, whoever is attached.
    if (this.config.roots) return { ...this.options.clientCapabilities, roots: { listChanged: true } };
    const declared = [...this.sessions.values()].find((s) => s.clientCapabilities.roots !== undefined);
    return declared ? { ...this.options.clientCapabilities, roots: { listChanged: true } } : this.options.clientCapabilities;
  }

  /**
   * New roots from a reload of mcp.json, for a server that had roots there before
   * (its child was started with the roots capability): the child is told the list
   * changed, and asks for it again, instead of being restarted.
   */
  setRoots(roots: NonNullable<StdioServerConfig["roots"]>): void {
    this.config = { ...this.config, roots };
    this.sendToChild({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  }

  private markUnavailable(reason: string): void {
    this.child = undefined;
    this.lastError = reason;
    this.nextStartAt = this.now() + backoffDelay(this.attempts, this.options.backoff);
    this.attempts++;
    if (this.state !== "stopped") this.state = "unavailable";
    this.options.logger.warn("server unavailable", { server: this.name, reason });
  }

  private childExited(child: ChildProcess, exit: ExitInfo): void {
    if (this.child !== child) return;
    const reason = exit.expected ? "stopped" : child.fatal ? `was restarted: it ${child.fatal}` : `crashed (${describeExit(exit)})`;
    if (!exit.expected) this.markUnavailable(`${reason}${child.stderrTail() ? `; last stderr: ${child.stderrTail(3)}` : ""}`);
    // In-flight calls fail at once rather than waiting for a timeout.
    const data: BridgeErrorData = exit.expected
      ? { kind: "server_stopped", server: this.name, reason: "was stopped" }
      : {
          kind: "server_crashed",
          server: this.name,
          reason: `${reason} while handling this request; it restarts on the next request`,
          retryAfterMs: this.retryAfterMs(),
        };
    const message = `MCP server "${this.name}" ${data.reason}`;
    for (const [childId, pending] of this.pending) {
      this.finish(childId, pending, bridgeError(pending.id, data, message));
    }
    for (const [id, request] of this.serverRequests) {
      for (const sessionId of request.sessions) {
        this.sessions.get(sessionId)?.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "server stopped" } });
      }
    }
    this.serverRequests.clear();
  }

  // ---- messages from a session ----

  async fromSession(session: Downstream, message: JSONRPCMessage): Promise<void> {
    if (isRequest(message)) return this.request(session, message);
    if (isNotification(message)) return this.notification(session, message);
    if (isResponse(message)) return this.answer(session, message);
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
    if (request.method === "initialize") {
      const result = this.initializeResult(request, child);
      session.protocolVersion = result.protocolVersion;
      session.deliver({ jsonrpc: "2.0", id: request.id, result }, request.id);
      return;
    }
    const childId = this.nextId++;
    const params = request.params ? { ...request.params } : undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    const progressToken = meta?.progressToken as string | number | undefined;
    if (params && meta && progressToken !== undefined) params._meta = { ...meta, progressToken: childId };
    const tool = request.method === "tools/call" ? String((params as { name?: unknown } | undefined)?.name ?? "") : undefined;
    this.pending.set(childId, { session, id: request.id, method: request.method, tool, started: performance.now(), progressToken });
    this.bySessionRequest.set(requestKey(session.id, request.id), childId);
    if (request.method === "resources/subscribe" || request.method === "resources/unsubscribe") this.trackSubscription(session, request);
    if (!this.sendToChild({ ...request, id: childId, params })) {
      const data: BridgeErrorData = { kind: "server_unavailable", server: this.name, reason: "could not be sent the request (its input is closed)" };
      this.finish(childId, this.pending.get(childId), bridgeError(request.id, data, `could not forward the request to MCP server "${this.name}"`));
    }
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

  private answer(session: Downstream, response: JSONRPCResultResponse | JSONRPCErrorResponse): void {
    if (response.id === undefined) return;
    const key = String(response.id);
    const request = this.serverRequests.get(key);
    if (!request?.sessions.has(session.id)) return;
    this.serverRequests.delete(key);
    this.sendToChild({ ...response, id: request.childId } as JSONRPCMessage);
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

  private fromChild(message: JSONRPCMessage): void {
    if (isResponse(message)) {
      const childId = typeof message.id === "number" ? message.id : Number.NaN;
      const pending = this.pending.get(childId);
      if (pending) this.finish(childId, pending, { ...message, id: pending.id });
      return;
    }
    if (isRequest(message)) return this.serverRequest(message);
    if (isNotification(message)) this.childNotification(message);
  }

  private finish(childId: number, pending: Pending | undefined, response: JSONRPCMessage | undefined): void {
    this.pending.delete(childId);
    if (!pending) return;
    this.bySessionRequest.delete(requestKey(pending.session.id, pending.id));
    const failed = !response || isErrorResponse(response) || (isResponse(response) && "result" in response && response.result.isError === true);
    this.stats.record(pending.tool, performance.now() - pending.started, failed ? "error" : "ok");
    if (response) pending.session.deliver(response, pending.id);
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
    if (notification.method === "notifications/cancelled") {
      // The child withdrew a request it had sent to sessions.
      const childId = params?.requestId;
      for (const [id, request] of this.serverRequests) {
        if (request.childId !== childId) continue;
        this.serverRequests.delete(id);
        for (const sessionId of request.sessions) this.sessions.get(sessionId)?.deliver({ ...notification, params: { ...params, requestId: id } });
      }
      return;
    }
    if (notification.method === "notifications/resources/updated") {
      for (const sessionId of this.subscriptions.get(String(params?.uri)) ?? []) this.sessions.get(sessionId)?.deliver(notification);
      return;
    }
    // list_changed, logging and anything else concern every session.
    for (const session of this.sessions.values()) session.deliver(notification);
  }

  private serverRequest(request: JSONRPCRequest): void {
    if (request.method === "ping") {
      this.sendToChild({ jsonrpc: "2.0", id: request.id, result: {} });
      return;
    }
    if (request.method === "roots/list" && this.config.roots) {
      this.sendToChild({ jsonrpc: "2.0", id: request.id, result: { roots: this.config.roots } });
      return;
    }
    const capability = CAPABILITY_FOR[request.method];
    const capable = [...this.sessions.values()].filter((s) => !capability || s.clientCapabilities[capability] !== undefined);
    // Over stdio nothing says which call caused a server request: the oldest call in flight
    // from a capable session is taken as the one waiting on it, and never across users.
    const route = routeServerRequest(capable, [...this.pending.values()], this.options.user);
    if ("refused" in route) {
      this.options.logger.warn("server request refused", { server: this.name, method: request.method, reason: route.refused });
      this.sendToChild(rpcError(request.id, RPC.methodNotFound, route.refused));
      return;
    }
    const id = `bridge-${this.nextServerRequest++}`;
    const entry: ServerRequest = { childId: request.id, sessions: new Set() };
    for (const session of route.to) {
      if (session.deliver({ ...request, id }, route.related)) entry.sessions.add(session.id);
    }
    if (entry.sessions.size === 0) {
      const what = capability ? `supports ${capability}` : "can take the request";
      this.sendToChild(rpcError(request.id, RPC.methodNotFound, `no connected session ${what}`));
      return;
    }
    this.serverRequests.set(id, entry);
  }

  private trackSubscription(session: Downstream, request: JSONRPCRequest): void {
    const uri = String((request.params as { uri?: unknown } | undefined)?.uri ?? "");
    const sessions = this.subscriptions.get(uri) ?? new Set<string>();
    if (request.method === "resources/subscribe") sessions.add(session.id);
    else sessions.delete(session.id);
    if (sessions.size > 0) this.subscriptions.set(uri, sessions);
    else this.subscriptions.delete(uri);
  }

  private sendToChild(message: JSONRPCMessage): boolean {
    return this.child?.send(message) ?? false;
  }

  async stop(timeoutMs: number): Promise<{ killed: boolean }> {
    this.state = "stopped";
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
    const child = this.child ?? (await this.launching?.catch(() => undefined));
    if (!child) return { killed: false };
    const result = await child.stop(timeoutMs);
    this.options.logger.info("server stopped", { server: this.name, how: result.killed ? "SIGKILL" : describeExit(result) });
    return { killed: result.killed };
  }

  health(): Record<string, unknown> {
    return {
      state: this.state,
      pid: this.child?.pid ?? null,
      uptimeMs: this.child && this.state === "ready" ? this.now() - this.child.startedAt : 0,
      restarts: this.restarts,
      lastError: this.lastError ?? null,
      sessions: this.sessions.size,
    };
  }
}

function requestKey(sessionId: string, id: RequestId): string {
  return `${sessionId}\u0000${typeof id}\u0000${id}`;
}
