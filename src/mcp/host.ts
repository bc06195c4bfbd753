// McpHost: every configured MCP server behind one API. Starts servers in
// dependency order, routes `{server}.{tool}` calls after validating arguments,
// enforces timeouts, cancellation, circuit breakers and health, and caches
// resources and prompts. Runtime-neutral: the transport factory decides whether
// a server is a child process (Node) or a URL (workerd).
import { UriTemplate, type CallToolResult, type GetPromptResult, type Implementation, type ReadResourceResult, type Root } from "@modelcontextprotocol/client";
import { defaultBackoff, type BackoffPolicy } from "../shared/backoff";
import { defaultBreaker, type BreakerPolicy } from "./breaker";
import { defaultCache, TtlLruCache, type CachePolicy } from "./cache";
import { MCP_APP_MIME, MCP_APPS_EXTENSION } from "./app-ui";
import { TASKS_EXTENSION } from "./tasks";
import { toPublicTool, type ServerCapabilitiesView, type ServerStatus, type ToolView } from "./capabilities";
import { callTool, type CallToolOptions } from "./call";
import type { McpConfig } from "../shared/mcp-config/config";
import { ServerConnection, type ChangeKind, type ConnectionDeps, type ServerState } from "./connection";
import { NotFoundError, ToolNotFoundError } from "./errors";
import { serverGuide, type ServerGuide } from "./guide";
import { logLevelMeta } from "./log-level";
import { silentLogger, type Logger } from "../shared/logger";
import { observedCall, type HostMetrics, type ToolCallRecord } from "./host-metrics";
import { FunctionNameMap, splitQualified } from "./names";
import { capabilitiesFor, capabilitiesForServer, type ServerRequestHandlers } from "./server-requests";
import { startInOrder, type ConnectReport } from "./start-order";
import { cachedRead, type Cached, type CachedReadDeps, type RequestOptions } from "./cached-read";
import type { EraVerdict } from "./protocol-era";
import type { TransportFactory } from "./transports";

export type { CallToolOptions } from "./call";
export type { ConnectReport } from "./start-order";
export type { RequestOptions } from "./cached-read";
export { HostMetricsSchema, type HostMetrics, type ToolCallRecord } from "./host-metrics";

export interface McpHostOptions {
  transports: TransportFactory;
  logger?: Logger;
  now?: () => number;
  clientInfo?: Implementation;
  connectTimeoutMs?: number;
  /** Safe-request retries (list/read/get) and reconnect backoff. */
  retry?: BackoffPolicy;
  breaker?: BreakerPolicy;
  cache?: CachePolicy;
  /** Told of every tool call that reached a server, once it ended (the operator's metrics across sessions). */
  onToolCall?: (call: ToolCallRecord) => void;
  /** What each server was last found with (the session's discovery): its era and its lists with a ttl, so connects skip the probe and fresh lists. */
  eras?: ConnectionDeps["eras"];
}

export class McpHost {
  private readonly connections = new Map<string, ServerConnection>();
  private readonly listeners = new Set<(server: string, kind: ChangeKind) => void>();
  private readonly updateListeners = new Set<(server: string, uri: string) => void>();
  private readonly cache: TtlLruCache<Cached>;
  private readonly reads: CachedReadDeps;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly retry: BackoffPolicy;
  /** The handlers given to `onServerRequest`: a held task's questions go the same way (tasks.ts answerTaskInputs). */
  serverRequests: Readonly<ServerRequestHandlers> = {};
  private names?: FunctionNameMap;

  constructor(private readonly options: McpHostOptions) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? (() => performance.now());
    this.retry = options.retry ?? defaultBackoff;
    this.cache = new TtlLruCache(options.cache ?? defaultCache, this.now);
    this.reads = { cache: this.cache, now: this.now, retry: this.retry };
  }

  /** Register before `connect`: the capabilities advertised are exactly the handlers given. */
  onServerRequest(handlers: ServerRequestHandlers): void {
    this.serverRequests = { ...handlers };
  }

  /** Called when a server's state, tools, prompts or resources change. */
  onChange(listener: (server: string, kind: ChangeKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called when a subscribed resource changed (its cached copy is dropped first). */
  onResourceUpdated(listener: (server: string, uri: string) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  /** The era `server`'s last connect negotiated (kept with its discovery, so the next connect skips the probe). */
  eraOf(server: string): EraVerdict | undefined {
    return this.connections.get(server)?.verdict;
  }

  /** The server a resource read of `uri` goes to (it lists the uri, or a template of it matches). */
  resourceServer(uri: string): string | undefined {
    return this.resourceOwner(uri)?.name;
  }

  /** A server's connection, for what src/mcp/catalog.ts asks of it (completion, subscriptions). */
  connectionFor(server: string): ServerConnection | undefined {
    return this.connections.get(server);
  }

  async connect(config: McpConfig): Promise<ConnectReport> {
    // MCP Apps: the page renders `ui://` HTML resources (public/chat/mcp-app-frame.js), so servers may offer them.
    // Tasks: a 2026 server may make a call a task (tasks.ts; the caller's onTask or an in-memory wait holds it).
    const extensions = { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME] }, [TASKS_EXTENSION]: {} };
    const capabilities = { ...capabilitiesFor(this.serverRequests), extensions };
    for (const server of config.servers) {
      if (this.connections.has(server.name)) throw new Error(`server "${server.name}" is already connected`);
      this.connections.set(
        server.name,
        new ServerConnection(server, {
          transports: this.options.transports,
          clientInfo: this.options.clientInfo ?? { name: "edgehost", version: "0.1.0" },
          capabilities: capabilitiesForServer(capabilities, server),
          handlers: () => this.serverRequests,
          logger: this.logger,
          now: this.now,
          policies: {
            connectTimeoutMs: this.options.connectTimeoutMs ?? 30_000,
            reconnect: this.retry,
            breaker: this.options.breaker ?? defaultBreaker,
          },
          onChange: (name, kind) => this.changed(name, kind),
          eras: this.options.eras,
          onResourceUpdated: (name, uri) => {
            this.cache.delete(resourceKey(name, uri));
            for (const listener of this.updateListeners) listener(name, uri);
          },
        }),
      );
    }
    return startInOrder(
      this.connections,
      config.servers.filter((s) => !s.disabled).map((s) => s.name),
    );
  }

  /**
   * Tries again every unavailable server whose backoff has passed (a chat session calls this at each turn),
   * and waits for one already connecting: a background retry that began just before the turn would
   * otherwise leave that server's tools out of it.
   */
  async reconnect(): Promise<void> {
    const all = [...this.connections.values()];
    for (const c of all) if ((c.state === "unavailable" || c.state === "auth_required") && c.retryAfterMs() === 0) void c.connect().catch(() => undefined);
    // Every connect under way now, those just started included.
    await Promise.all(all.map((c) => c.opened()));
  }

  /** Connects `name` again now, whatever its backoff (after the user signed in to it); its state after (undefined: no such server). */
  async reconnectServer(name: string): Promise<ServerState | undefined> {
    const connection = this.connections.get(name);
    if (connection && connection.state !== "disabled" && connection.state !== "closed") await connection.connect().catch(() => undefined);
    return connection?.state;
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }

  /**
   * Changes a server's roots and sends it `notifications/roots/list_changed`. False when
   * the server was connected without roots (its entry had none): reconnect it instead.
   */
  async setRoots(server: string, roots: Root[]): Promise<boolean> {
    return (await this.connections.get(server)?.setRoots(roots)) ?? false;
  }

  /** Servers that are ready, with everything they offer: what the model may see. */
  listCapabilities(): ServerCapabilitiesView[] {
    const names = this.functionNames();
    return this.ready().map((c) => ({
      name: c.name,
      transport: c.transportKind ?? "unknown",
      serverInfo: c.serverInfo,
      instructions: c.instructions,
      tools: [...c.tools.values()].map((t) => toPublicTool(t, names)),
      prompts: c.prompts,
      resources: c.resources,
      resourceTemplates: c.resourceTemplates,
    }));
  }

  /** Every configured server, whatever its state. */
  servers(): ServerStatus[] {
    return [...this.connections.values()].map((c) => ({
      name: c.name,
      state: c.state,
      transport: c.transportKind,
      ...(c.verdict ? { protocol: c.verdict.protocolVersion } : {}),
      toolCount: c.state === "ready" ? c.tools.size : 0,
      lastError: c.lastError,
      retryAfterMs: c.retryAfterMs() || undefined,
      pid: c.pid() ?? undefined,
    }));
  }

  tools(): ToolView[] {
    const names = this.functionNames();
    return this.ready().flatMap((c) => [...c.tools.values()].map((t) => toPublicTool(t, names)));
  }

  /** Function name (or qualified name) → qualified name, for routing what a model asked for. */
  resolveToolName(name: string): string | undefined {
    return this.functionNames().qualifiedName(name);
  }

  async callTool(name: string, args: Record<string, unknown> = {}, given: CallToolOptions = {}): Promise<CallToolResult> {
    const options: CallToolOptions = { urlElicitationRequired: this.serverRequests.urlElicitationRequired, ...given };
    const qualified = splitQualified(name) ?? splitQualified(this.resolveToolName(name) ?? "");
    const connection = qualified && this.connections.get(qualified.server);
    if (!qualified || !connection) throw new ToolNotFoundError(name, this.availableToolNames());
    // Timed and told to `onToolCall` (the operator's metrics) in host-metrics.ts.
    return observedCall(this.options.onToolCall, this.now, { server: connection.name, tool: qualified.tool }, () =>
      callTool(connection, qualified.tool, args, options, this.logger, () => this.availableToolNames()),
    );
  }

  async getPrompt(name: string, args: Record<string, string> = {}, options: RequestOptions = {}): Promise<GetPromptResult> {
    const qualified = splitQualified(name);
    const connection = qualified && this.connections.get(qualified.server);
    if (!qualified || !connection) throw new NotFoundError("prompt", name);
    const key = `prompt\u0000${connection.name}\u0000${qualified.tool}\u0000${JSON.stringify(Object.entries(args).sort())}`;
    const value = await cachedRead(this.reads, key, connection, options, async (client, signal) => {
      if (!connection.prompts.some((p) => p.name === qualified.tool)) throw new NotFoundError("prompt", name);
      return client.getPrompt({ name: qualified.tool, arguments: args, ...logLevelMeta(client) }, { signal, timeout: connection.config.timeoutMs });
    });
    return value as GetPromptResult;
  }

  /** Reads a resource from the server that lists it (or whose template matches), or from `server`. */
  async readResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<ReadResourceResult> {
    const connection = options.server ? this.connections.get(options.server) : this.resourceOwner(uri);
    if (!connection) throw new NotFoundError("resource", uri);
    // `request`, not the SDK's readResource(): that one keeps its own cache when a server sends
    // `ttlMs`, which would answer a `bypassCache` read from memory. The cache here is the only one.
    const value = await cachedRead(this.reads, resourceKey(connection.name, uri), connection, options, (client, signal) =>
      client.request({ method: "resources/read", params: { uri, ...logLevelMeta(client) } }, { signal, timeout: connection.config.timeoutMs }),
    );
    return value as ReadResourceResult;
  }

  /** Guidance for the system prompt: each ready server's `tool-descriptions` prompt, or one generated from its tools. */
  async guides(): Promise<ServerGuide[]> {
    return Promise.all(this.ready().map((c) => serverGuide(c, (name) => this.getPrompt(`${c.name}.${name}`))));
  }

  metrics(): HostMetrics {
    const servers: HostMetrics["servers"] = {};
    for (const c of this.connections.values()) servers[c.name] = { state: c.state, ...c.stats.snapshot() };
    return { servers, cache: this.cache.stats() };
  }

  private resourceOwner(uri: string): ServerConnection | undefined {
    const all = [...this.connections.values()];
    return (
      all.find((c) => c.resources.some((r) => r.uri === uri)) ??
      all.find((c) => c.resourceTemplates.some((t) => new UriTemplate(t.uriTemplate).match(uri) !== null))
    );
  }

  private ready(): ServerConnection[] {
    return [...this.connections.values()].filter((c) => c.state === "ready");
  }

  private availableToolNames(): string[] {
    return this.ready().flatMap((c) => [...c.tools.values()].map((t) => t.qualifiedName));
  }

  private functionNames(): FunctionNameMap {
    this.names ??= new FunctionNameMap(this.availableToolNames());
    return this.names;
  }

  private changed(server: string, kind: ChangeKind): void {
    if (kind === "tools" || kind === "state") this.names = undefined;
    if (kind === "prompts") this.cache.deleteWhere((key) => key.startsWith(`prompt\u0000${server}\u0000`));
    if (kind === "resources") this.cache.deleteWhere((key) => key.startsWith(`resource\u0000${server}\u0000`));
    for (const listener of this.listeners) listener(server, kind);
  }
}

function resourceKey(server: string, uri: string): string {
  return `resource\u0000${server}\u0000${uri}`;
}
