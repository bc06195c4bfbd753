// One MCP server as the host sees it: its SDK Client, its state, what it offers,
// and the rules for when it is usable. Health comes from use only (no pinging):
// a timeout or a closed connection makes the server unavailable, and the next
// use after a backoff delay tries to connect again.
import { publicFailure } from "./http-failure";
import {
  Client,
  ProtocolError,
  ProtocolErrorCode,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type Implementation,
  type Prompt,
  type RequestOptions,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Root,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/client";
// The same validator in workerd and in Node, where the SDK's default is Ajv (it generates code, which workerd forbids).
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { createArgumentsValidator, type ArgumentsValidator } from "./arguments";
import { backoffDelay, type BackoffPolicy } from "../shared/backoff";
import { CircuitBreaker, type BreakerPolicy } from "./breaker";
import { z } from "zod";
import type { ServerConfig } from "../shared/mcp-config/config";
import { ServerUnavailableError } from "./errors";
import { isSignInRequired } from "./oauth/errors";
import { errorMessage, type Logger } from "../shared/logger";
import { ServerStats } from "../shared/metrics";
import { qualify } from "./names";
import type { ServerRequestHandlers } from "./server-requests";
import { toolUiResourceUri, toolUiVisibility, type ToolUiVisibility } from "./app-ui";
import { shouldFallBack, type TransportFactory, type TransportHandle, type TransportKind } from "./transports";
import { rpcRefusal } from "./rpc-refusal";

// auth_required: the server answered 401 and only the user signing in (OAuth) lets us in.
export const ServerStateSchema = z.enum(["connecting", "ready", "unavailable", "closed", "disabled", "auth_required"]);
export type ServerState = z.infer<typeof ServerStateSchema>;
export type ChangeKind = "tools" | "prompts" | "resources" | "state";

export interface DiscoveredTool {
  name: string;
  qualifiedName: string;
  title?: string;
  description?: string;
  inputSchema: Tool["inputSchema"];
  outputSchema?: Tool["outputSchema"];
  annotations?: Tool["annotations"];
  /** MCP Apps: the `ui://` resource that renders this tool's results (app-ui.ts). */
  uiResourceUri?: string;
  /** MCP Apps: who may call it (absent: the model and apps alike). */
  uiVisibility?: ToolUiVisibility;
  validateArguments: ArgumentsValidator;
  validateOutput?: ArgumentsValidator;
  breaker: CircuitBreaker;
}

export interface ConnectionPolicies {
  connectTimeoutMs: number;
  reconnect: Pick<BackoffPolicy, "initialMs" | "maxMs">;
  breaker: BreakerPolicy;
}

export interface ConnectionDeps {
  transports: TransportFactory;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  handlers: () => ServerRequestHandlers;
  logger: Logger;
  now: () => number;
  policies: ConnectionPolicies;
  onChange: (server: string, kind: ChangeKind) => void;
  /** A resource this client subscribed to changed (notifications/resources/updated). */
  onResourceUpdated?: (server: string, uri: string) => void;
}

// A server that keeps returning next cursors is broken; stop rather than loop.
const MAX_PAGES = 100;

type ListMethod = "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list";

export class ServerConnection {
  state: ServerState;
  lastError?: string;
  since: number;
  client?: Client;
  transportKind?: TransportKind;
  serverInfo?: Implementation;
  serverCapabilities?: ServerCapabilities;
  instructions?: string;
  tools = new Map<string, DiscoveredTool>();
  prompts: Prompt[] = [];
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplate[] = [];
  readonly stats = new ServerStats();
  /** The roots this server is served (its entry's, as changed since by setRoots); undefined: the roots handler's. */
  roots?: Root[];

  private handle?: TransportHandle;
  private generation = 0;
  private opening?: Promise<Client>;
  private reconnectAttempts = 0;
  private nextAttemptAt = 0;
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly teardowns = new Set<Promise<void>>();

  constructor(
    readonly config: ServerConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.state = config.disabled ? "disabled" : "connecting";
    this.since = deps.now();
    this.roots = config.roots;
  }

  get name(): string {
    return this.config.name;
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
      this.deps.logger.info("server ready", {
        server: this.name,
        transport: this.transportKind,
        tools: this.tools.size,
        ms: Math.round(this.deps.now() - started),
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

  private async openCandidates(generation: number): Promise<Client> {
    const candidates = this.deps.transports(this.config);
    for (let i = 0; ; i++) {
      const candidate = candidates[i];
      if (!candidate) throw new Error("no transport for this server");
      const handle = candidate.create();
      this.trackSends(handle);
      const client = this.newClient();
      this.handle = handle;
      this.client = client;
      try {
        await client.connect(handle.transport, { timeout: this.deps.policies.connectTimeoutMs });
        if (generation !== this.generation) throw new Error("superseded");
        this.transportKind = handle.kind;
        this.serverInfo = client.getServerVersion();
        this.serverCapabilities = client.getServerCapabilities();
        this.instructions = client.getInstructions();
        this.listen(client, generation);
        await this.discover(client);
        if (generation !== this.generation) throw new Error("superseded");
        return client;
      } catch (error) {
        await client.close().catch(() => undefined);
        if (i + 1 < candidates.length && shouldFallBack(error)) {
          this.deps.logger.info("falling back to the next transport", { server: this.name, from: handle.kind, reason: errorMessage(error) });
          continue;
        }
        throw error;
      }
    }
  }

  private newClient(): Client {
    const client = new Client(this.deps.clientInfo, {
      capabilities: this.deps.capabilities,
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    });
    const caps = this.deps.capabilities;
    const server = this.name;
    if (caps.sampling) {
      client.setRequestHandler("sampling/createMessage", (request, ctx) => {
        const handler = this.deps.handlers().sampling;
        if (!handler) throw rpcRefusal("unsupported", "sampling is not available");
        return handler({ server, params: request.params, signal: ctx.mcpReq.signal });
      });
    }
    if (caps.elicitation) {
      client.setRequestHandler("elicitation/create", (request, ctx) => {
        const handler = this.deps.handlers().elicitation;
        if (!handler) throw rpcRefusal("unsupported", "elicitation is not available");
        return handler({ server, params: request.params, signal: ctx.mcpReq.signal });
      });
    }
    if (caps.roots) {
      client.setRequestHandler("roots/list", async () => {
        if (this.roots) return { roots: this.roots };
        const handler = this.deps.handlers().roots;
        return { roots: handler ? await handler({ server }) : [] };
      });
    }
    return client;
  }

  private listen(client: Client, generation: number): void {
    const current = () => generation === this.generation;
    client.onclose = () => {
      if (current() && this.state === "ready") this.markUnavailable("connection closed");
    };
    client.onerror = (error) => {
      if (!current()) return;
      this.deps.logger.debug("transport error", { server: this.name, error: errorMessage(error) });
      // A response stream that broke before its answer: the SDK only reports it, and the request would
      // wait for its timeout. Closing the client fails the requests in flight at once.
      if (/SSE stream disconnected/.test(errorMessage(error))) this.markUnavailable(`the connection was lost (${errorMessage(error)})`);
    };
    const refresh = (kind: "tools" | "prompts" | "resources") => () => {
      if (!current()) return;
      this.refresh(client, kind).catch((error) =>
        this.deps.logger.warn("refresh after list_changed failed", { server: this.name, kind, error: errorMessage(error) }),
      );
    };
    client.setNotificationHandler("notifications/tools/list_changed", refresh("tools"));
    client.setNotificationHandler("notifications/prompts/list_changed", refresh("prompts"));
    client.setNotificationHandler("notifications/resources/list_changed", refresh("resources"));
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      if (current()) this.deps.onResourceUpdated?.(this.name, notification.params.uri);
    });
    client.setNotificationHandler("notifications/message", (notification) => {
      this.deps.logger.debug("server log", { server: this.name, level: notification.params.level, logger: notification.params.logger });
    });
  }

  private async discover(client: Client): Promise<void> {
    const caps = client.getServerCapabilities() ?? {};
    await Promise.all([
      caps.tools ? this.refresh(client, "tools", false) : undefined,
      caps.prompts ? this.refresh(client, "prompts", false) : undefined,
      caps.resources ? this.refresh(client, "resources", false) : undefined,
    ]);
  }

  private async refresh(client: Client, kind: "tools" | "prompts" | "resources", announce = true): Promise<void> {
    const options: RequestOptions = { timeout: this.config.timeoutMs };
    // One page per request, cursor by cursor: the SDK's listTools() & co. walk every page themselves
    // when given no cursor (and keep their own cache of the result), while the paging rules here are the host's.
    const page =
      <M extends ListMethod>(method: M) =>
      (cursor: string | undefined) =>
        client.request({ method, params: cursor === undefined ? {} : { cursor } }, options);
    if (kind === "tools") {
      const tools = await listAll(page("tools/list"), (result) => result.tools);
      this.tools = this.indexTools(tools);
    } else if (kind === "prompts") {
      this.prompts = await listAll(page("prompts/list"), (result) => result.prompts);
    } else {
      [this.resources, this.resourceTemplates] = await Promise.all([
        listAll(page("resources/list"), (result) => result.resources),
        listAll(page("resources/templates/list"), (result) => result.resourceTemplates),
      ]);
    }
    if (announce) this.deps.onChange(this.name, kind);
  }

  private indexTools(tools: Tool[]): Map<string, DiscoveredTool> {
    const { includeTools, excludeTools } = this.config;
    const index = new Map<string, DiscoveredTool>();
    for (const tool of tools) {
      if (includeTools && !includeTools.includes(tool.name)) continue;
      if (excludeTools.includes(tool.name)) continue;
      // This host does not drive MCP tasks; a tool that only runs as a task cannot be called.
      if (tool.execution?.taskSupport === "required") continue;
      let breaker = this.breakers.get(tool.name);
      if (!breaker) {
        breaker = new CircuitBreaker(this.deps.policies.breaker, this.deps.now);
        this.breakers.set(tool.name, breaker);
      }
      index.set(tool.name, {
        name: tool.name,
        qualifiedName: qualify(this.name, tool.name),
        title: tool.title ?? tool.annotations?.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
        uiResourceUri: toolUiResourceUri(tool._meta),
        uiVisibility: toolUiVisibility(tool._meta),
        validateArguments: createArgumentsValidator(tool.inputSchema),
        validateOutput: tool.outputSchema ? createArgumentsValidator(tool.outputSchema) : undefined,
        breaker,
      });
    }
    return index;
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

  private readonly sending = new Set<Promise<void>>();

  /** Remembers messages still being sent, so a teardown lets them (e.g. a cancellation) go out first. */
  private trackSends(handle: TransportHandle): void {
    const transport = handle.transport;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const sent = send(message, options);
      this.sending.add(sent);
      void sent.catch(() => undefined).finally(() => this.sending.delete(sent));
      return sent;
    };
  }

  /** Closes the current client (and so ends its child process); `close()` waits for every one still running. */
  private teardown(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return Promise.resolve();
    client.onclose = undefined;
    const transport = this.handle?.transport;
    const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms))]);
    const flushed = within(Promise.allSettled([...this.sending]), 1_000);
    // Closing only aborts locally: DELETE ends the server's session, or it would live on until its idle expiry.
    const ended = () =>
      transport instanceof StreamableHTTPClientTransport && transport.sessionId
        ? within(
            transport.terminateSession().catch(() => undefined),
            2_000,
          )
        : undefined;
    const done = flushed
      .then(ended)
      .then(() => client.close())
      .catch(() => undefined);
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

async function listAll<P extends { nextCursor?: string }, T>(fetchPage: (cursor: string | undefined) => Promise<P>, items: (page: P) => T[]): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(cursor);
    all.push(...items(result));
    cursor = result.nextCursor;
    if (!cursor || seen.has(cursor)) return all;
    seen.add(cursor);
  }
  return all;
}
