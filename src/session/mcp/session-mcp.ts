// A session's MCP side: its McpHost (connected lazily, again after hibernation),
// the per-session server choice, and the server status the page shows. Requests
// servers make of the user (sampling, elicitation) go through the session's
// Approvals (session-host.ts). The host lives in memory only; the choice is in SQLite.
import type { ToolView } from "../../mcp/capabilities";
import type { McpConfig, RemoteServerConfig } from "../../shared/mcp-config/config";
import type { ServerGuide } from "../../mcp/guide";
import { visibleTo } from "../../mcp/app-ui";
import type { McpHost } from "../../mcp/host";
import { errorMessage } from "../../shared/logger";
import { KeptDiscovery } from "./kept-discovery";
import { serverStatus } from "./server-status";
import type { SessionMcpConfig } from "../../servers/mcp-json";
import { isBridged } from "../../mcp/bridge-routing";
import { machineOfUrl } from "../../machines/tunnel-url";
import { mergeServers } from "../../servers/merge";
import { sessionBaseConfig } from "./base-config";
import type { ServerStatusView, SessionMcpDeps, UserServers } from "./deps";
import { chooseServers, connectableConfig, enabledIn, rootsOnlyChanges } from "./server-choice";
import { createSessionHost } from "./session-host";
import { OwnerServers } from "./owner-servers";
import { ConnectGrace } from "./connect-grace";

export type { OwnerDiscoveryPort, ServerStatusView, SessionMcpDeps, UserServers } from "./deps";
export { forgetServerChoice } from "./server-choice";

export class SessionMcp {
  private readonly base: SessionMcpConfig;
  /** mcp.json's servers plus the owner's runtime ones. */
  config: SessionMcpConfig;
  private mcpHost: McpHost;
  private connecting?: Promise<void>;
  private connected = false;
  private readonly discovery: KeptDiscovery;
  private readonly owner: OwnerServers;
  // The enabled servers' tools, kept until the host's tools or the choice change: a
  // turn reads them at every step.
  private toolCache?: ToolView[];

  constructor(private readonly deps: SessionMcpDeps) {
    // The deployment's servers this owner gets (base-config.ts).
    this.base = sessionBaseConfig(deps);
    this.config = this.base;
    this.owner = new OwnerServers(deps.userServers, deps.notice);
    this.discovery = new KeptDiscovery(deps.store, this.config.config, deps.ownerDiscovery, deps.logger);
    this.mcpHost = this.createHost();
  }

  /** The configuration the host connects: servers switched off here are left out unless one in use depends on them. */
  private connectable(): McpConfig {
    const { config, leftOut } = connectableConfig(this.config.config, this.enabled());
    this.leftOut = leftOut;
    return config;
  }

  /** Servers the host was not asked to connect (switched off here when it connected). */
  private leftOut = new Set<string>();

  /** The trace a turn's MCP requests carry (W3C trace context): the turn's id as 32 hex digits. */
  private traceId?: string;

  /** Requests from now on belong to turn `turnId` (undefined: to no turn). */
  traceTurn(turnId: string | undefined): void {
    const hex = turnId?.replace(/-/g, "").toLowerCase();
    this.traceId = hex && /^[0-9a-f]{32}$/.test(hex) ? hex : undefined;
  }

  private createHost(): McpHost {
    const host = createSessionHost(this.deps, {
      bridged: (server) => this.bridged(server),
      own: (server) => this.owner.owns(server),
      traceId: () => this.traceId,
      // Every server negotiates its era, the bridge and paired machines too (their change notifications come over subscriptions/listen on 2026).
      era: (name) => this.discovery.era(name),
      lists: this.discovery.lists,
    });
    host.onChange((_server, kind) => {
      if (host !== this.mcpHost) return;
      // A list read again (list_changed) is kept in the rows at once: a new session must not take the old one while its ttl lasts.
      if (kind !== "state" && this.connected) void this.discovery.remember(this.mcpHost);
      if (kind !== "state" && kind !== "tools") return;
      this.toolCache = undefined;
      this.deps.changed();
    });
    return host;
  }

  host(): McpHost {
    return this.mcpHost;
  }

  /** A stdio server reached through the local bridge or a paired machine: never OAuth. */
  private bridged(server: RemoteServerConfig): boolean {
    return isBridged(server.url, this.deps.settings.BRIDGE_URL) || machineOfUrl(server.url) !== undefined;
  }

  /** Connects one server again now (the user just signed in to it). */
  async reconnectServer(name: string): Promise<string | undefined> {
    await this.ensureConnected();
    // A "private" list is for one authorization context: one read before this sign-in (or sign-out) is not reused.
    this.discovery.lists.forget(name);
    return this.mcpHost.reconnectServer(name);
  }

  ensureConnected(): Promise<void> {
    if (this.connecting) return this.connecting;
    let opened: () => void = () => undefined;
    this.connectionsOpened = new Promise<void>((resolve) => (opened = resolve));
    const first = !this.openedOnce;
    this.openedOnce = true;
    this.connecting = (async () => {
      if (this.owner.version === undefined) await this.syncUserServers();
      await this.discovery.seedFromOwner(this.enabled());
      // With every tool known from last time, a wake's connections give way to a message sent at once.
      if (first && !this.connected && this.discovery.get(this.enabled())) await this.grace.wait();
      const host = this.mcpHost;
      const connected = host.connect(this.connectable());
      opened(); // the host knows its servers now: a tool call waits for its server instead of finding none
      await connected;
      if (host !== this.mcpHost) return;
      this.connected = true;
      this.toolCache = undefined;
      this.deps.changed();
      await this.discovery.remember(this.mcpHost);
    })().finally(() => opened());
    return this.connecting;
  }

  /** Resolves once the current connections were handed to the host (or failed to be). */
  private connectionsOpened?: Promise<void>;
  private openedOnce = false;
  private readonly grace = new ConnectGrace();

  /** The host once the connections were handed to it: a tool call of a turn that started from last time's tools waits here. */
  async readyHost(): Promise<McpHost> {
    await this.connectionsOpened;
    return this.mcpHost;
  }

  /**
   * Reads the owner's runtime servers; when they changed since the last read, the
   * session's connections are rebuilt on the new configuration. True when they changed.
   */
  async syncUserServers(): Promise<boolean> {
    const change = await this.owner.sync();
    if (!change) return false;
    const { servers, previous } = change;
    // Which servers this owner has: one rule, in src/servers/merge.ts.
    this.config = mergeServers(this.base, { servers, machines: change.machines, refuseUrl: this.deps.refuseUrl });
    this.discovery.reconfigure(this.config.config);
    if (change.first) return true;
    // Only roots changed: the connections stay, and each server hears its list changed.
    const changedRoots = previous && !change.machinesChanged ? rootsOnlyChanges(previous, servers) : undefined;
    const host = this.mcpHost;
    if (changedRoots && this.connected && (await Promise.all(changedRoots.map((s) => host.setRoots(s.name, s.roots ?? [])))).every(Boolean)) {
      void this.discovery.remember(this.mcpHost);
      return true;
    }
    await this.rebuild();
    return true;
  }

  /** The version of the owner's server list this session last read (undefined before the first read). */
  get knownUserVersion(): string | undefined {
    return this.owner.version;
  }

  /**
   * A read of the owner's servers for the next syncUserServers, asked against
   * `knownUserVersion`: a turn gets it in the same call to the account as its
   * admission, so the turn waits for one round trip, not two.
   */
  useUserServers(read: Promise<UserServers>): void {
    this.owner.prefetch(read);
  }

  /** Closes every connection and starts again (a changed configuration, or a restart asked for). */
  async rebuild(): Promise<void> {
    const old = this.mcpHost;
    this.mcpHost = this.createHost();
    this.connecting = undefined;
    this.connectionsOpened = undefined;
    this.connected = false;
    this.toolCache = undefined;
    await old.close().catch(() => undefined);
    this.deps.changed();
  }

  /**
   * Connects (or retries servers whose backoff passed) and tells the user about servers
   * left out. On a cold start with a discovery from last time, the connections open in
   * the background instead: the model sees last time's tools and a call waits for its server.
   */
  async prepareTurn(): Promise<void> {
    await this.syncUserServers();
    // Switched on while a turn ran (the connections were not rebuilt under it): connected now.
    if (this.connected) await this.connectSwitchedOn();
    for (const problem of this.config.problems) this.deps.notice(problem);
    if (!this.connected) await this.discovery.seedFromOwner(this.enabled());
    if (!this.connected && this.discovery.get(this.enabled())) {
      void this.ensureConnected().catch((error: unknown) => this.deps.notice(`MCP servers could not be reached: ${errorMessage(error)}.`));
      this.grace.endSoon();
      return;
    }
    await this.ensureConnected();
    await this.mcpHost.reconnect();
    const enabled = this.enabled();
    for (const server of this.mcpHost.servers()) {
      if (server.state !== "ready" && enabled(server.name)) {
        this.deps.notice(`MCP server "${server.name}" is unavailable (${server.lastError ?? server.state}); its tools are left out of this turn.`);
      }
    }
    for (const { server, reason } of this.config.unreachable) {
      if (enabled(server)) this.deps.notice(`MCP server "${server}" is unavailable: ${reason}.`);
    }
  }

  tools(): ToolView[] {
    if (!this.toolCache) {
      const enabled = this.enabled();
      const all = this.connected ? this.mcpHost.tools() : (this.discovery.get(this.enabled())?.tools ?? this.mcpHost.tools());
      // MCP Apps: a tool only its app may call (`_meta.ui.visibility: ["app"]`) is kept from the model.
      this.toolCache = all.filter((t) => enabled(t.server) && visibleTo(t.uiVisibility, "model"));
    }
    return this.toolCache;
  }

  /** Each server's guidance for the system prompt (last time's while connections open). */
  async guides(): Promise<ServerGuide[]> {
    if (!this.connected) {
      const cached = this.discovery.get(this.enabled());
      if (cached) return cached.guides;
    }
    return this.mcpHost.guides().catch(() => []);
  }

  status(): ServerStatusView[] {
    return serverStatus(this.mcpHost, this.config, this.enabled());
  }

  /**
   * The session's choice of servers. A server switched on that was left unconnected is
   * connected now: the returned work rebuilds the connections (the caller keeps the
   * object alive while it runs).
   */
  setEnabled(names: string[]): (() => Promise<void>) | undefined {
    chooseServers(this.deps.store, names);
    this.toolCache = undefined;
    return this.switchedOn() ? () => this.connectSwitchedOn() : undefined;
  }

  /** Whether a server switched on here was left unconnected (it was off when the connections opened). */
  private switchedOn(): boolean {
    const enabled = this.enabled();
    return this.connecting !== undefined && [...this.leftOut].some((name) => enabled(name));
  }

  private async connectSwitchedOn(): Promise<void> {
    if (!this.switchedOn()) return;
    await this.rebuild();
    await this.ensureConnected();
  }

  configuredServers(): McpConfig["servers"] {
    return this.config.config.servers;
  }

  /** Whether this session's configuration names `server` (reachable or not). */
  isConfigured(server: string): boolean {
    return this.config.config.servers.some((s) => s.name === server) || this.config.unreachable.some((u) => u.server === server);
  }

  isEnabled(server: string): boolean {
    return this.enabled()(server);
  }

  /** The servers this session uses (configured, not disabled, turned on), for the page's resource and prompt lists. */
  enabledServers(): string[] {
    const enabled = this.enabled();
    return this.config.config.servers.filter((s) => !s.disabled && enabled(s.name)).map((s) => s.name);
  }

  private enabled(): (server: string) => boolean {
    return enabledIn(this.deps.store);
  }

  async close(): Promise<void> {
    await this.mcpHost.close();
  }
}
