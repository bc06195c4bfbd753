// The bridge: one ServerProxy (one child) per stdio server in mcp.json, the HTTP
// server in front of them, idle-session expiry, hot reload that touches only the
// servers whose entries changed, and a shutdown that leaves no process behind.
// The port is bound before any child starts, so a taken port costs no process.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpConfig, StdioServerConfig } from "@edgehost/shared/mcp-config/config";
import { dependencyOrder } from "@edgehost/shared/mcp-config/dependency-graph";
import { StartupError } from "@edgehost/shared/errors";
import { errorMessage, type Logger } from "@edgehost/shared/logger";
import { defaultHosts, defaultOrigins, type AccessPolicy } from "./auth";
import { createRequestHandler } from "./http";
import { listen } from "./listen";
import type { HttpContext } from "./http-context";
import { ServerProxy, type ProxyOptions } from "./proxy";
import { HttpError, type BridgeRequest, type BridgeResponse, type RequestHandler } from "./request";
import { RPC } from "@edgehost/shared/rpc";
import { MAX_CHILDREN_PER_SERVER, UserChildren } from "./user-children";
import type { LegacySseSession, StreamableSession } from "./sessions";

export { ListenError } from "./listen";

/** Every value is given: the defaults live with the command line (options.ts). */
export interface BridgeOptions {
  host: string;
  port: number;
  token: string;
  /** Directory of mcp.json: relative paths in it are resolved from here. */
  baseDir: string;
  logger: Logger;
  allowHosts: string[];
  allowOrigins: string[];
  maxBodyBytes: number;
  startupTimeoutMs: number;
  shutdownTimeoutMs: number;
  sessionIdleMs: number;
  standaloneStream: boolean;
  /**
   * Listen on nothing: `connect` mode, where the only way in is the relay of the bridge's
   * own outgoing WebSocket, which hands its requests to `handle()`.
   */
  inMemory?: boolean;
  backoff: { initialMs: number; maxMs: number };
}

export interface BridgeHealth {
  ok: boolean;
  servers: Record<string, Record<string, unknown>>;
}

export class Bridge {
  private readonly proxies = new Map<string, ServerProxy>();
  /** The per-user children of `"isolation": "user"` servers (user-children.ts). */
  private readonly userChildren = new UserChildren((name, user) => {
    const shared = this.proxies.get(name);
    // One stats object per server: /metrics counts every user's calls under the server's name.
    return this.newProxy(shared?.config ?? this.configOf(name), { user, stats: shared?.stats });
  });
  private readonly streamable = new Map<string, StreamableSession>();
  private readonly legacy = new Map<string, LegacySseSession>();
  private server?: Server;
  private handler?: RequestHandler;
  private sweeper?: ReturnType<typeof setInterval>;
  private access?: AccessPolicy;
  private config: McpConfig = { servers: [] };

  constructor(private readonly options: BridgeOptions) {}

  /** Listens, then starts every stdio server (all or nothing). Returns the bound port. */
  async start(config: McpConfig): Promise<number> {
    this.config = config;
    const handler = createRequestHandler(this.handlerContext());
    this.handler = handler;
    const server = createServer(handler);
    // Keep-alive longer than typical clients' so idle pooled sockets are not cut mid-request.
    server.keepAliveTimeout = 65_000;
    const inMemory = this.options.inMemory === true;
    if (!inMemory) await listen(server, this.options.host, this.options.port);
    this.server = server;
    const port = inMemory ? 0 : (server.address() as AddressInfo).port;
    // The allow-list needs the real port (it may have been 0). In memory the relay is the only client.
    this.access = {
      token: this.options.token,
      allowedHosts: inMemory ? new Set(["localhost"]) : defaultHosts(port, this.options.allowHosts),
      allowedOrigins: inMemory ? new Set<string>() : defaultOrigins(port, this.options.allowOrigins),
    };
    try {
      await this.startServers(stdioServers(config));
    } catch (error) {
      await this.closeServer();
      throw error;
    }
    const idleMs = this.options.sessionIdleMs;
    this.sweeper = setInterval(() => this.expireIdle(idleMs), Math.min(idleMs, 60_000));
    this.sweeper.unref();
    return port;
  }

  /** A request for the bridge's handler from inside this process (`inMemory` mode: the relay), with no HTTP in between. */
  handle(req: BridgeRequest, res: BridgeResponse): void {
    if (!this.handler) throw new Error("the bridge is not started");
    this.handler(req, res);
  }

  private handlerContext(): HttpContext {
    const bridge = this;
    return {
      // Read per request: the allow-list is only known once the port is bound.
      get access(): AccessPolicy {
        return bridge.access ?? { token: bridge.options.token, allowedHosts: new Set<string>(), allowedOrigins: new Set<string>() };
      },
      logger: this.options.logger,
      maxBodyBytes: this.options.maxBodyBytes,
      standaloneStream: this.options.standaloneStream,
      proxy: (name: string, user: string) => {
        const shared = this.proxies.get(name);
        // A local client (no user) shares the startup child; each user of an isolated server gets their own.
        if (shared?.config.isolation !== "user" || user === "") return shared;
        const own = this.userChildren.get(name, user);
        if (!own)
          throw new HttpError(
            503,
            RPC.serverError,
            `MCP server "${name}" runs one child per user and already has ${MAX_CHILDREN_PER_SERVER}; a child is freed once its user has had no session for the idle timeout`,
            { "retry-after": "60" },
          );
        return own;
      },
      health: () => this.health(),
      metrics: () => this.metrics(),
      streamable: this.streamable,
      legacy: this.legacy,
    };
  }

  private async startServers(servers: StdioServerConfig[]): Promise<void> {
    const byName = new Map(servers.map((s) => [s.name, s]));
    const started: ServerProxy[] = [];
    for (const level of dependencyOrder(servers)) {
      const proxies = level.flatMap((name) => {
        const server = byName.get(name);
        return server ? [this.createProxy(server)] : [];
      });
      const results = await Promise.allSettled(proxies.map((p) => p.start()));
      started.push(...proxies);
      const failures = results.flatMap((r, i) => (r.status === "rejected" ? [{ server: proxies[i]?.name ?? "", reason: errorMessage(r.reason) }] : []));
      if (failures.length > 0) {
        await Promise.all(started.map((p) => p.stop(this.shutdownTimeout())));
        for (const p of started) this.proxies.delete(p.name);
        throw new StartupError(failures);
      }
    }
  }

  private createProxy(server: StdioServerConfig): ServerProxy {
    const proxy = this.newProxy(server);
    this.proxies.set(server.name, proxy);
    return proxy;
  }

  private configOf(name: string): StdioServerConfig {
    const server = stdioServers(this.config).find((s) => s.name === name);
    if (!server) throw new Error(`no stdio server "${name}"`);
    return server;
  }

  private newProxy(server: StdioServerConfig, perUser: Pick<ProxyOptions, "user" | "stats"> = {}): ServerProxy {
    return new ServerProxy(server, {
      ...perUser,
      baseDir: this.options.baseDir,
      logger: this.options.logger,
      startupTimeoutMs: this.options.startupTimeoutMs,
      clientInfo: { name: "mcp-local-bridge", version: "0.1.0" },
      // The bridge answers these by asking the sessions that declared them. Roots are
      // added per child only while a session that declared them is attached (proxy.ts).
      clientCapabilities: { sampling: {}, elicitation: { form: {} } },
      backoff: this.options.backoff,
    });
  }

  /**
   * Applies a new mcp.json: starts added servers, restarts changed ones, stops removed ones.
   * A server whose `roots` alone changed (and had roots before and after) keeps running and
   * gets `notifications/roots/list_changed` instead (`roots` in the answer).
   */
  async reload(next: McpConfig): Promise<{ added: string[]; changed: string[]; removed: string[]; roots: string[] }> {
    const previous = new Map(stdioServers(this.config).map((s) => [s.name, s]));
    const before = new Map(stdioServers(this.config).map((s) => [s.name, JSON.stringify(s)]));
    const after = stdioServers(next);
    const added = after.filter((s) => !before.has(s.name)).map((s) => s.name);
    const differs = after.filter((s) => before.has(s.name) && before.get(s.name) !== JSON.stringify(s));
    const rootsOnly = differs.filter((s) => {
      const old = previous.get(s.name);
      return old?.roots !== undefined && s.roots !== undefined && JSON.stringify({ ...old, roots: [] }) === JSON.stringify({ ...s, roots: [] });
    });
    const changed = differs.filter((s) => !rootsOnly.includes(s)).map((s) => s.name);
    const roots = rootsOnly.map((s) => s.name);
    for (const server of rootsOnly) this.proxies.get(server.name)?.setRoots(server.roots ?? []);
    const removed = [...before.keys()].filter((name) => !after.some((s) => s.name === name));
    await Promise.all([...removed, ...changed].map((name) => this.stopProxy(name)));
    this.config = next;
    const toStart = after.filter((s) => added.includes(s.name) || changed.includes(s.name));
    for (const server of toStart) {
      const proxy = this.createProxy(server);
      // A server that fails to start on reload is reported and retried on use; the others keep serving.
      await proxy.start().catch((error: unknown) => this.options.logger.error("server failed to start", { server: server.name, error: errorMessage(error) }));
    }
    this.options.logger.info("mcp.json reloaded", { added, changed, removed, roots });
    return { added, changed, removed, roots };
  }

  private async stopProxy(name: string): Promise<boolean> {
    const proxy = this.proxies.get(name);
    if (!proxy) return true;
    this.proxies.delete(name);
    const [{ killed }, users] = await Promise.all([proxy.stop(this.shutdownTimeout()), this.userChildren.stop(this.shutdownTimeout(), name)]);
    return !killed && users;
  }

  /** Closes sessions and stops every child (SIGTERM, then SIGKILL). True when all stopped on SIGTERM. */
  async stop(): Promise<boolean> {
    clearInterval(this.sweeper);
    const closing = this.closeServer();
    const results = await Promise.all([...this.proxies.keys()].map((name) => this.stopProxy(name)));
    await closing;
    return results.every(Boolean);
  }

  private closeServer(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    if (!server.listening) {
      server.closeAllConnections();
      return Promise.resolve();
    }
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    return closed;
  }

  /** Immediate SIGKILL of every child, for a forced exit. */
  kill(): void {
    for (const pid of this.childPids()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  private expireIdle(idleMs: number): void {
    const cutoff = Date.now() - idleMs;
    for (const session of [...this.streamable.values(), ...this.legacy.values()]) {
      if (session.lastSeen >= cutoff) continue;
      this.options.logger.info("session expired", { session: session.id, idleMs });
      session.close();
    }
    void this.userChildren
      .sweep(this.shutdownTimeout(), idleMs)
      .catch((error: unknown) => this.options.logger.warn("stopping idle user children failed", { error: errorMessage(error) }));
  }

  private shutdownTimeout(): number {
    return this.options.shutdownTimeoutMs;
  }

  childPids(): number[] {
    return [...this.proxies.values(), ...this.userChildren.all()].flatMap((p) => (p.child?.pid ? [p.child.pid] : []));
  }

  health(): BridgeHealth {
    const servers: Record<string, Record<string, unknown>> = {};
    for (const [name, proxy] of this.proxies) {
      const health = proxy.health();
      // An isolated server: the startup child (local clients) plus one child per user; sessions counts them all.
      servers[name] =
        proxy.config.isolation === "user"
          ? { ...health, sessions: proxy.sessions.size + this.userChildren.sessions(name), userChildren: this.userChildren.count(name) }
          : health;
    }
    return { ok: [...this.proxies.values()].every((p) => p.state === "ready"), servers };
  }

  metrics(): Record<string, unknown> {
    const servers: Record<string, unknown> = {};
    for (const [name, proxy] of this.proxies) servers[name] = { state: proxy.state, ...proxy.stats.snapshot() };
    return { servers, sessions: { streamable: this.streamable.size, sse: this.legacy.size } };
  }
}

function stdioServers(config: McpConfig): StdioServerConfig[] {
  return config.servers.filter((s): s is StdioServerConfig => s.transport === "stdio" && !s.disabled);
}
