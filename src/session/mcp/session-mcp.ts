// A session's MCP side: its McpHost (connected lazily, again after hibernation),
// the per-session server choice, and the server status the page shows. Requests
// servers make of the user (sampling, elicitation) go through the session's
// Approvals. The host lives in memory only; the server choice is in SQLite.
import type { CreateMessageResult, ModelPreferences, OAuthClientProvider } from "@modelcontextprotocol/client";
import { answerSampling, type RegistryPick, type SamplingParams } from "../orchestrator/sampling";
import type { Approvals, SettingsStore } from "../approval/approvals";
import type { Settings } from "../config/settings";
import type { LlmProvider } from "../llm/provider";
import type { ToolView } from "../mcp/capabilities";
import type { McpConfig, RemoteServerConfig } from "../shared/mcp-config/config";
import type { ServerGuide } from "../mcp/guide";
import { visibleTo } from "../mcp/app-ui";
import { McpHost, type ToolCallRecord } from "../mcp/host";
import { errorMessage, type Logger } from "../shared/logger";
import { heldLegacy } from "../mcp/protocol-era";
import { DiscoveryCache } from "./discovery-cache";
import { workerTransports } from "../mcp/transports";
import { loadSessionMcpConfig, type SessionMcpConfig } from "../servers/mcp-json";
import type { ServerMessage } from "../protocol/messages";
import { isBridged } from "../mcp/bridge-routing";
import type { MachineView } from "../machines/machine-store";
import { machineOfUrl } from "../machines/tunnel-url";
import { challengeRecordingFetch } from "../mcp/oauth/challenge-fetch";
import type { StoredChallenge } from "../mcp/oauth/provider";
import { mergeServers } from "../servers/merge";
import type { Audience } from "../servers/audience";
import { deploymentServersFor } from "../servers/deployment";
import { rpcRefusal } from "../mcp/rpc-refusal";
import type { OwnerDiscoveryRow } from "../users/owner-discovery";

const ENABLED_KEY = "enabledServers";
/** How long a wake's connections wait for a first message when last time's tools are known (a person takes longer to type one). */
const CONNECT_GRACE_MS = 50;

export type ServerStatusView = Extract<ServerMessage, { type: "servers" }>["servers"][number];

/** The owner's runtime servers (src/users/user-servers.ts), and a version that changes with them; no list when the version is the one asked about. */
export interface UserServers {
  version: string;
  servers?: RemoteServerConfig[];
  /** The owner's paired machines (src/servers/machines.ts makes their servers). */
  machines?: MachineView[];
}

export interface SessionMcpDeps {
  /** The session's logger: the host logs servers coming and going, and failed calls. */
  logger?: Logger;
  env: Record<string, unknown>;
  userServers: (known?: string) => Promise<UserServers>;
  settings: Settings;
  store: SettingsStore;
  approvals: Approvals;
  /** Called when server state or tools changed (after the first connect too). */
  changed: () => void;
  notice: (text: string) => void;
  /** The session's model, for servers' sampling requests. */
  provider: () => Promise<LlmProvider | undefined>;
  /** Which model of the session's registry answers a sampling request (session-model.ts). */
  samplingModel?: (preferences: ModelPreferences | undefined, listed: readonly string[]) => Promise<RegistryPick>;
  /** Model tokens a sampling answer cost, counted into the owner's daily budget; ends the answer's `hold`. */
  used?: (tokens: number, hold: string) => Promise<void>;
  /** Holds a sampling answer's worst case (`hold` names it); why it may not be answered now (the budget is used up or held). */
  samplingRefusal?: (hold: string, tokens: number) => Promise<string | undefined>;
  /** The owner's OAuth client for a remote server (src/users/oauth-client-storage.ts); bridge-routed servers never get one. */
  oauth?: (server: RemoteServerConfig, outbound?: typeof fetch) => OAuthClientProvider | undefined;
  /** Why a runtime server's URL may not be connected to here (src/servers/url-policy.ts), even one stored earlier. */
  refuseUrl?: (url: string) => string | undefined;
  /** The owner as the deployment knows them, for mcp.json's audience rule (src/servers/audience.ts). */
  audience?: () => Audience;
  /** Keeps a server's OAuth challenge for the owner's next sign-in to it (src/mcp/oauth/challenge-fetch.ts). */
  recordChallenge?: (server: RemoteServerConfig, challenge: StoredChallenge) => Promise<void>;
  /** The fetch that reaches the owner's paired machines through their account. */
  machineFetch?: typeof fetch;
  /** The fetch for the owner's own servers: redirects followed by hand, each hop checked (src/servers/guarded-fetch.ts). */
  outbound?: typeof fetch;
  /** Told of each tool call that reached a server (the operator's metrics, src/session/operations-report.ts). */
  toolCalled?: (call: ToolCallRecord) => void;
  /** What the owner's servers offered in their other sessions (src/users/owner-discovery.ts). */
  ownerDiscovery?: OwnerDiscoveryPort;
}

/** Rows are discovery-cache.ts's JSON text; the account keeps them as given. */
export interface OwnerDiscoveryPort {
  read(wanted: { server: string; key: string }[]): Promise<OwnerDiscoveryRow[]>;
  keep(rows: OwnerDiscoveryRow[]): Promise<void>;
}

/** Drops the session's server choice (the session is being deleted). */
export function forgetServerChoice(store: SettingsStore): void {
  store.setSetting(ENABLED_KEY, undefined);
}

export class SessionMcp {
  private readonly base: SessionMcpConfig;
  /** mcp.json's servers plus the owner's runtime ones. */
  config: SessionMcpConfig;
  private mcpHost: McpHost;
  private connecting?: Promise<void>;
  private connected = false;
  private discovery: DiscoveryCache;
  private userVersion?: string;
  /** A read of the owner's servers started early (see prefetchUserServers), with the version it was asked against. */
  private prefetched?: { known?: string; read: Promise<UserServers> };
  /** The owner's servers as last read, to tell a change of roots alone from any other. */
  private userList?: RemoteServerConfig[];
  /** The owner's machines as last read: one coming or going rebuilds the connections. */
  private machineKey?: string;
  // The enabled servers' tools, kept until the host's tools or the choice change: a
  // turn reads them at every step.
  private toolCache?: ToolView[];
  /** The owner's rows read once for a session without its own (a new one): see seedFromOwner. */
  private ownerSeed?: Promise<void>;
  /** Each server's row as the owner's account has it (read or told), so an unchanged one is not sent again. */
  private readonly ownerRows = new Map<string, string>();

  constructor(private readonly deps: SessionMcpDeps) {
    // The deployment's servers this owner gets, each bridge request marked with whose it is.
    this.base = deploymentServersFor(loadSessionMcpConfig(deps.env, deps.settings), deps.audience?.() ?? { mode: "none" }, deps.settings.BRIDGE_URL);
    this.config = this.base;
    this.discovery = this.discoveryCache();
    this.mcpHost = this.createHost();
  }

  private discoveryCache(): DiscoveryCache {
    return new DiscoveryCache(this.deps.store, this.config.config, (server, error, chars) =>
      this.deps.logger?.warn("discovery not kept", { server, chars, error: errorMessage(error) }),
    );
  }

  /**
   * The configuration the host connects: servers this session switched off are left
   * out (marked disabled) unless a server it uses depends on them. Switching one on
   * later connects it (setEnabled).
   */
  private connectable(): McpConfig {
    const enabled = this.enabled();
    const servers = this.config.config.servers;
    const needed = new Set(servers.filter((s) => !s.disabled && enabled(s.name)).map((s) => s.name));
    for (let grew = true; grew; ) {
      grew = false;
      for (const server of servers) {
        if (!needed.has(server.name)) continue;
        for (const dependency of server.dependencies) {
          if (needed.has(dependency)) continue;
          needed.add(dependency);
          grew = true;
        }
      }
    }
    this.leftOut = new Set(servers.filter((s) => !s.disabled && !needed.has(s.name)).map((s) => s.name));
    return { ...this.config.config, servers: servers.map((s) => (this.leftOut.has(s.name) ? { ...s, disabled: true } : s)) };
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
    const host = new McpHost({
      transports: workerTransports({
        auth: (server) => (this.bridged(server) ? undefined : this.deps.oauth?.(server, this.own(server) ? this.deps.outbound : undefined)),
        traceId: () => this.traceId,
        fetchFor: (server) => {
          if (machineOfUrl(server.url)) return this.deps.machineFetch;
          // The owner's own server (not the deployment's): every request and redirect is held to the address rule.
          const own = this.own(server) ? this.deps.outbound : undefined;
          // A server the user may sign in to: its challenges, on any request, are kept for the sign-in.
          const record = this.deps.recordChallenge;
          return record && !this.bridged(server) ? challengeRecordingFetch((challenge) => record(server, challenge), own) : own;
        },
      }),
      logger: this.deps.logger,
      onToolCall: this.deps.toolCalled,
      connectTimeoutMs: this.deps.settings.MCP_CONNECT_TIMEOUT_MS,
      retry: { initialMs: this.deps.settings.MCP_RETRY_INITIAL_MS, maxMs: 30_000, tries: 3 },
      // The era each server was found to speak, kept with its discovery (remember()): the next connect skips the probe.
      // The bridge and paired machines stay on 2025 (protocol-era.ts heldLegacy).
      eras: { remembered: (name) => (this.bridgedName(name) ? heldLegacy(Date.now()) : this.discovery.era(name)) },
    });
    host.onServerRequest({
      sampling: (request) => this.sample(request.server, request.params, request.signal),
      elicitation: (request) => {
        const schema = "requestedSchema" in request.params ? (request.params.requestedSchema as Record<string, unknown>) : {};
        return this.deps.approvals.elicit(request.server, request.params.message, schema, request.signal);
      },
    });
    host.onChange((_server, kind) => {
      if (host !== this.mcpHost || (kind !== "state" && kind !== "tools")) return;
      this.toolCache = undefined;
      if (kind === "tools" && this.connected) void this.remember();
      this.deps.changed();
    });
    return host;
  }

  host(): McpHost {
    return this.mcpHost;
  }

  /** One of the owner's own runtime servers (not the deployment's), held to the address rule. */
  private own(server: RemoteServerConfig): boolean {
    return this.userList?.some((s) => s.name === server.name && s.url === server.url) ?? false;
  }

  private bridgedName(name: string): boolean {
    const server = this.config.config.servers.find((s) => s.name === name);
    return server !== undefined && server.transport !== "stdio" && this.bridged(server);
  }

  /** A stdio server reached through the local bridge or a paired machine: never OAuth. */
  private bridged(server: RemoteServerConfig): boolean {
    return isBridged(server.url, this.deps.settings.BRIDGE_URL) || machineOfUrl(server.url) !== undefined;
  }

  /** Connects one server again now (the user just signed in to it). */
  async reconnectServer(name: string): Promise<string | undefined> {
    await this.ensureConnected();
    return this.mcpHost.reconnectServer(name);
  }

  ensureConnected(): Promise<void> {
    if (this.connecting) return this.connecting;
    let opened: () => void = () => undefined;
    this.connectionsOpened = new Promise<void>((resolve) => (opened = resolve));
    const first = !this.openedOnce;
    this.openedOnce = true;
    this.connecting = (async () => {
      if (this.userVersion === undefined) await this.syncUserServers();
      await this.seedFromOwner();
      // With every tool known from last time, a wake's connections give way to a message sent at
      // once: they open once its first model request has left, or after a grace. Their discovery
      // (parsing hundreds of tools) is CPU on this object's one thread, which the request would wait for.
      if (first && !this.connected && this.discovery.get(this.enabled())) await this.grace();
      const host = this.mcpHost;
      const connected = host.connect(this.connectable());
      opened(); // the host knows its servers now: a tool call waits for its server instead of finding none
      await connected;
      if (host !== this.mcpHost) return;
      this.connected = true;
      this.toolCache = undefined;
      this.deps.changed();
      await this.remember();
    })().finally(() => opened());
    return this.connecting;
  }

  /** Resolves once the current connections were handed to the host (or failed to be). */
  private connectionsOpened?: Promise<void>;
  private openedOnce = false;
  /** Ends the grace of a wake's first connections (set while it runs). */
  private release?: () => void;
  /** A turn is on its way: a grace that starts now ends at once. */
  private releaseSoon = false;

  private grace(): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.release = undefined;
        resolve();
      };
      const timer = setTimeout(end, this.releaseSoon ? 0 : CONNECT_GRACE_MS);
      this.release = end;
    });
  }

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
    let user: UserServers;
    const early = this.prefetched?.known === this.userVersion ? this.prefetched?.read : undefined;
    this.prefetched = undefined;
    try {
      user = await (early ?? this.deps.userServers(this.userVersion));
    } catch (error) {
      this.deps.notice(`Your own MCP servers could not be read (${errorMessage(error)}); the deployment's servers serve.`);
      user = { version: this.userVersion ?? "unreadable", servers: [] };
    }
    if (user.version === this.userVersion || !user.servers) return false;
    const first = this.userVersion === undefined;
    this.userVersion = user.version;
    const servers = user.servers;
    const previous = this.userList;
    this.userList = servers;
    const machineKey = JSON.stringify(user.machines ?? []);
    const machinesChanged = machineKey !== this.machineKey;
    this.machineKey = machineKey;
    // Which servers this owner has: one rule, in src/servers/merge.ts.
    this.config = mergeServers(this.base, { servers, machines: user.machines ?? [], refuseUrl: this.deps.refuseUrl });
    this.discovery = this.discoveryCache();
    if (first) return true;
    // Only roots changed: the connections stay, and each server hears its list changed.
    const changedRoots = previous && !machinesChanged ? rootsOnlyChanges(previous, servers) : undefined;
    const host = this.mcpHost;
    if (changedRoots && this.connected && (await Promise.all(changedRoots.map((s) => host.setRoots(s.name, s.roots ?? [])))).every(Boolean)) {
      void this.remember();
      return true;
    }
    await this.rebuild();
    return true;
  }

  /** The version of the owner's server list this session last read (undefined before the first read). */
  get knownUserVersion(): string | undefined {
    return this.userVersion;
  }

  /**
   * A read of the owner's servers for the next syncUserServers, asked against
   * `knownUserVersion`: a turn gets it in the same call to the account as its
   * admission, so the turn waits for one round trip, not two.
   */
  useUserServers(read: Promise<UserServers>): void {
    read.catch(() => undefined); // a failure is reported by the sync that uses it
    this.prefetched = { known: this.userVersion, read };
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
    if (!this.connected) await this.seedFromOwner();
    if (!this.connected && this.discovery.get(this.enabled())) {
      void this.ensureConnected().catch((error: unknown) => this.deps.notice(`MCP servers could not be reached: ${errorMessage(error)}.`));
      // The connections open in the task after this one, which sends the turn's first model request.
      this.releaseSoon = true;
      const release = this.release;
      if (release) setTimeout(release, 0);
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

  /** Keeps what the servers offer now for the next cold start. */
  private async remember(): Promise<void> {
    try {
      const connected = this.mcpHost
        .servers()
        .filter((s) => s.state === "ready")
        .map((s) => s.name);
      const host = this.mcpHost;
      const kept = this.discovery.save(host.tools(), await host.guides(), connected, (server) => host.eraOf(server));
      const news = kept.filter((k) => this.ownerRows.get(k.server) !== k.row);
      for (const k of news) this.ownerRows.set(k.server, k.row);
      if (news.length > 0) await this.deps.ownerDiscovery?.keep(news);
    } catch {
      // A guide that cannot be read now (or the account) is retried at the next change; nothing is lost.
    }
  }

  /**
   * A session with no discovery of its own for the servers it uses (a new one) takes
   * what the owner's other sessions found, once: its first turn then need not wait for
   * the connections. A read that fails leaves it to wait, as before.
   */
  private seedFromOwner(): Promise<void> {
    this.ownerSeed ??= (async () => {
      const read = this.deps.ownerDiscovery;
      const missing = this.discovery.missing(this.enabled());
      if (!read || missing.length === 0) return;
      const rows = await read.read(missing).catch(() => []);
      for (const taken of this.discovery.seed(rows)) this.ownerRows.set(taken.server, taken.row);
    })();
    return this.ownerSeed;
  }

  status(): ServerStatusView[] {
    const enabled = this.enabled();
    const live: ServerStatusView[] = this.mcpHost
      .servers()
      .map((s) => ({ name: s.name, state: s.state, enabled: enabled(s.name), toolCount: s.toolCount, lastError: s.lastError, protocol: s.protocol }));
    // Configured but not yet handed to the host (the owner's servers are still being read).
    const known = new Set(live.map((s) => s.name));
    for (const server of this.config.config.servers) {
      if (!known.has(server.name) && !server.disabled)
        live.push({ name: server.name, state: "connecting", enabled: enabled(server.name), toolCount: 0, lastError: undefined });
    }
    const missing = this.config.unreachable.map((u) => ({
      name: u.server,
      state: "unavailable" as const,
      enabled: enabled(u.server),
      toolCount: 0,
      lastError: u.reason,
    }));
    return [...live, ...missing];
  }

  /**
   * The session's choice of servers. A server switched on that was left unconnected is
   * connected now: the returned work rebuilds the connections (the caller keeps the
   * object alive while it runs).
   */
  setEnabled(names: string[]): (() => Promise<void>) | undefined {
    this.deps.store.setSetting(ENABLED_KEY, names);
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
    const chosen = this.deps.store.getSetting<string[]>(ENABLED_KEY);
    if (!chosen) return () => true;
    const set = new Set(chosen);
    return (server) => set.has(server);
  }

  private async sample(server: string, params: SamplingParams, signal: AbortSignal): Promise<CreateMessageResult> {
    const provider = await this.deps.provider();
    if (!provider) throw rpcRefusal("no_model", "no model is configured for sampling");
    const hold = `sampling:${crypto.randomUUID()}`;
    const pick = this.deps.samplingModel;
    const result = await answerSampling(
      params,
      {
        provider,
        models: this.deps.settings.SAMPLING_MODELS,
        maxTokensCap: this.deps.settings.SAMPLING_MAX_TOKENS,
        approve: (summary, asked) => this.deps.approvals.approveSampling(server, summary, asked),
        used: (tokens) => this.deps.used?.(tokens, hold),
        refusal: (tokens) => this.deps.samplingRefusal?.(hold, tokens) ?? Promise.resolve(undefined),
        ...(pick ? { choose: (preferences) => pick(preferences, this.deps.settings.SAMPLING_MODELS) } : {}),
      },
      signal,
    );
    this.deps.notice(`Answered a sampling request from "${server}" with ${result.model}.`);
    return result;
  }

  async close(): Promise<void> {
    await this.mcpHost.close();
  }
}

/**
 * The servers whose roots alone changed, when nothing else did (same servers, same
 * entries otherwise, roots listed before and after); undefined when anything else changed.
 */
function rootsOnlyChanges(before: RemoteServerConfig[], after: RemoteServerConfig[]): RemoteServerConfig[] | undefined {
  if (before.length !== after.length) return undefined;
  const byName = new Map(before.map((s) => [s.name, s]));
  const changed: RemoteServerConfig[] = [];
  for (const server of after) {
    const old = byName.get(server.name);
    if (!old) return undefined;
    if (JSON.stringify(old) === JSON.stringify(server)) continue;
    if (old.roots === undefined || server.roots === undefined) return undefined;
    if (JSON.stringify({ ...old, roots: [] }) !== JSON.stringify({ ...server, roots: [] })) return undefined;
    changed.push(server);
  }
  return changed;
}
