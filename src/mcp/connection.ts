// One MCP server as the host sees it: its state and the rules for when it is usable.
// Health comes from use only (no pinging): a timeout, a closed connection or a broken
// response stream makes the server unavailable, and the next use after a backoff delay
// tries to connect again. A connect (its transports, its MCP era) is connect-attempt.ts,
// what the server offers is read in discovery.ts, and its transport is wrapped in
// tracked-transport.ts (sends still going out) and stream-watch.ts (broken streams); its
// dependencies, policies and states are connection-types.ts.
import type {
  Client,
  Implementation,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Root,
  ServerCapabilities,
} from "@modelcontextprotocol/client";
import { backoffDelay } from "../shared/backoff";
import type { ServerConfig } from "../shared/mcp-config/config";
import { errorMessage } from "../shared/logger";
import { ServerStats } from "../shared/metrics";
import { ServerOfferings, type DiscoveredTool } from "./discovery";
import { ServerUnavailableError } from "./errors";
import { publicFailure } from "./http-failure";
import { isSignInRequired } from "./oauth/errors";
import { openClient, type AttemptHooks } from "./connect-attempt";
import { priorFrom, verdictOf, type EraVerdict } from "./protocol-era";
import { ChangeFeed } from "./change-feed";
import type { ConnectionDeps, ServerState } from "./connection-types";
import type { TrackedTransport } from "./tracked-transport";
import type { TransportHandle, TransportKind } from "./transports";

export type { DiscoveredTool } from "./discovery";
export { ServerStateSchema, type ChangeKind, type ConnectionDeps, type ConnectionPolicies, type EraMemory, type ServerState } from "./connection-types";

export class ServerConnection {
  state: ServerState;
  lastError?: string;
  since: number;
  client?: Client;
  transportKind?: TransportKind;
  serverInfo?: Implementation;
  serverCapabilities?: ServerCapabilities;
  instructions?: string;
  /** The era and revision the last successful connect negotiated. */
  verdict?: EraVerdict;
  readonly stats = new ServerStats();
  /** The roots this server is served (its entry's, as changed since by setRoots); undefined: the roots handler's. */
  roots?: Root[];

  private handle?: TransportHandle;
  private tracked?: TrackedTransport;
  private generation = 0;
  private opening?: Promise<Client>;
  private reconnectAttempts = 0;
  private nextAttemptAt = 0;
  private readonly offerings: ServerOfferings;
  /** Change notifications in either era: resources watched, and the 2026 listen stream (change-feed.ts). */
  readonly changes: ChangeFeed;
  private readonly teardowns = new Set<Promise<void>>();

  constructor(
    readonly config: ServerConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.state = config.disabled ? "disabled" : "connecting";
    this.since = deps.now();
    this.roots = config.roots;
    this.offerings = new ServerOfferings(config, { policy: deps.policies.breaker, now: deps.now, memory: deps.eras });
    this.changes = new ChangeFeed({
      server: config.name,
      logger: deps.logger,
      now: deps.now,
      reconnect: deps.policies.reconnect,
      closed: () => this.state === "ready" && this.markUnavailable("connection closed"),
      listChanged: (client, kind) => {
        this.offerings.refresh(client, kind).then(
          () => this.deps.onChange(this.name, kind),
          (error: unknown) => this.deps.logger.warn("refresh after list_changed failed", { server: this.name, kind, error: errorMessage(error) }),
        );
      },
      resourceUpdated: (uri) => this.deps.onResourceUpdated?.(this.name, uri),
    });
  }

  get name(): string {
    return this.config.name;
  }

  get tools(): Map<string, DiscoveredTool> {
    return this.offerings.tools;
  }
  get prompts(): Prompt[] {
    return this.offerings.prompts;
  }
  get resources(): Resource[] {
    return this.offerings.resources;
  }
  get resourceTemplates(): ResourceTemplate[] {
    return this.offerings.resourceTemplates;
  }

  pid(): number | null {
    return this.handle?.pid?.() ?? null;
  }

  /** Milliseconds until a reconnect may be tried, when unavailable. */
  retryAfterMs(): number {
    return this.state === "unavailable" || this.state === "auth_required" ? Math.max(0, this.nextAttemptAt - this.deps.now()) : 0;
  }

  /** First connect (or a reconnect): single-flight, bounded by the connect timeout. */
  connect(): Promise<Client> {
    if (this.opening) return this.opening;
    const opening = this.open().finally(() => {
      if (this.opening === opening) this.opening = undefined;
    });
    this.opening = opening;
    return opening;
  }

  /** Settles when a connect under way ends, however it ends (at once when none is). */
  async opened(): Promise<void> {
    await this.opening?.catch(() => undefined);
  }

  /** The client, connecting again if the server is unavailable and its backoff has passed. */
  async ready(): Promise<Client> {
    if (this.state === "ready" && this.client) return this.client;
    if (this.state === "connecting") return this.connect();
    if (this.state === "disabled" || this.state === "closed") {
      throw new ServerUnavailableError(this.name, this.state === "disabled" ? "disabled in mcp.json" : "closed");
    }
    const wait = this.retryAfterMs();
    if (wait > 0) throw new ServerUnavailableError(this.name, this.lastError ?? "unavailable", wait);
    return this.connect();
  }

  /**
   * New roots for a server that was offered roots: kept for its next roots/list, and the
   * server is told the list changed. False when it was never offered roots (it must be
   * connected again, with the capability, to hear of them).
   */
  async setRoots(roots: Root[]): Promise<boolean> {
    if (!this.deps.capabilities.roots?.listChanged) return false;
    this.roots = roots;
    const client = this.state === "ready" ? this.client : undefined;
    // Not connected now: the next connection asks for the roots anyway.
    await client
      ?.sendRootsListChanged()
      .catch((error: unknown) => this.deps.logger.warn("roots/list_changed not sent", { server: this.name, error: errorMessage(error) }));
    return true;
  }

  private async open(): Promise<Client> {
    const generation = ++this.generation;
    await this.teardown();
    this.setState("connecting");
    const started = this.deps.now();
    const timeoutMs = this.deps.policies.connectTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not start within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    });
    try {
      const attempt = this.openCandidates(generation);
      // The loser of the race still settles later; its rejection is already handled below.
      attempt.catch(() => undefined);
      const client = await Promise.race([attempt, timeout]);
      this.reconnectAttempts = 0;
      this.lastError = undefined;
      this.setState("ready");
      const ms = Math.round(this.deps.now() - started);
      this.deps.logger.info("server ready", {
        server: this.name,
        transport: this.transportKind,
        protocol: this.verdict?.protocolVersion,
        tools: this.tools.size,
        ms,
      });
      return client;
    } catch (error) {
      const tail = this.handle?.stderrTail?.();
      const reason = publicFailure(error) + (tail ? `; last stderr: ${tail.split("\n").slice(-5).join(" | ")}` : "");
      if (generation === this.generation) {
        this.generation++;
        await this.teardown();
        this.markFailed(reason, isSignInRequired(error) ? "auth_required" : "unavailable");
      }
      throw new ServerUnavailableError(this.name, reason, this.retryAfterMs(), error);
    } finally {
      clearTimeout(timer);
    }
  }

  private openCandidates(generation: number): Promise<Client> {
    const current = () => generation === this.generation;
    const { deps } = this;
    const attempt = { ...deps, connectTimeoutMs: deps.policies.connectTimeoutMs, roots: () => this.roots };
    const remembered = deps.eras?.remembered(this.name);
    const hooks: AttemptHooks = {
      current,
      onStreamBroken: (error) => this.markUnavailable(`the connection was lost (${publicFailure(error)})`),
      attach: (handle, tracked, client) => Object.assign(this, { handle, tracked, client }),
      connected: async (client, handle, prior) => {
        Object.assign(this, { transportKind: handle.kind, serverInfo: client.getServerVersion(), instructions: client.getInstructions() });
        this.serverCapabilities = client.getServerCapabilities();
        // A remembered verdict that held keeps its date: a legacy one is probed again a day after it was found.
        this.verdict = verdictOf(client, prior && remembered ? remembered.at : Date.now());
        // The lists are read while a 2026 connection's listen stream opens (change-feed.ts).
        await Promise.all([this.offerings.discover(client), this.changes.attach(client, current, this.config.timeoutMs)]);
        if (this.verdict && current()) deps.eras?.found?.(this.name, this.verdict);
      },
    };
    return openClient(this.config, attempt, hooks, priorFrom(remembered, Date.now()));
  }

  /** A timeout or a dead connection: hide the server, free its process, back off. */
  markUnavailable(reason: string): void {
    if (this.state !== "ready" && this.state !== "connecting") return;
    this.generation++;
    void this.teardown();
    this.markFailed(reason);
  }

  /** Only the user can let us in (OAuth sign-in); tried again when asked (a sign-in, a restart), or at a turn once the backoff passed. */
  markAuthRequired(reason: string): void {
    if (this.state === "ready" || this.state === "connecting") {
      this.generation++;
      void this.teardown();
    }
    this.markFailed(reason, "auth_required");
  }

  /** Backs off and shows why; `auth_required` waits for a sign-in rather than for the server. */
  private markFailed(reason: string, state: "unavailable" | "auth_required" = "unavailable"): void {
    this.lastError = reason;
    this.nextAttemptAt = this.deps.now() + backoffDelay(this.reconnectAttempts, this.deps.policies.reconnect);
    this.reconnectAttempts++;
    this.setState(state);
    if (state === "auth_required") this.deps.logger.info("server needs sign-in", { server: this.name });
    else this.deps.logger.warn("server unavailable", { server: this.name, reason });
  }

  private setState(state: ServerState): void {
    if (this.state === state) return;
    this.state = state;
    this.since = this.deps.now();
    this.deps.onChange(this.name, "state");
  }

  /** Closes the current client (and so ends its child process); `close()` waits for every one still running. */
  private teardown(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.changes.detach();
    if (!client) return Promise.resolve();
    client.onclose = undefined;
    const done = this.tracked ? this.tracked.end(client) : client.close().catch(() => undefined);
    this.teardowns.add(done);
    void done.finally(() => this.teardowns.delete(done));
    return done;
  }

  async close(): Promise<void> {
    this.generation++;
    await this.teardown();
    await Promise.all(this.teardowns);
    if (this.state !== "disabled") this.setState("closed");
    this.deps.logger.info("server closed", { server: this.name });
  }
}
