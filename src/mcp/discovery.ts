// What a server offers, read through its Client: tools, prompts, resources and resource
// templates, page by page with the host's own paging rules, and each tool indexed with its
// validators, its MCP Apps metadata and its circuit breaker (kept across refreshes).
import type { Client, Prompt, RequestOptions, Resource, ResourceTemplateType as ResourceTemplate, Tool } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../shared/mcp-config/config";
import { toolUiResourceUri, toolUiVisibility, type ToolUiVisibility } from "./app-ui";
import { createArgumentsValidator, type ArgumentsValidator } from "./arguments";
import { CircuitBreaker, type BreakerPolicy } from "./breaker";
import { ListFreshness, usable, type KeptList, type ListKind, type ListMemory } from "./list-ttl";
import { qualify } from "./names";
import { TASKS_EXTENSION } from "./tasks";

export type { ListKind, ListMemory } from "./list-ttl";

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

/** What one server offers, as last read. */
export class ServerOfferings {
  tools = new Map<string, DiscoveredTool>();
  prompts: Prompt[] = [];
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplate[] = [];
  private readonly breakers = new Map<string, CircuitBreaker>();
  /** Lists read with a ttl (list-ttl.ts), kept while fresh: a reconnect does not read them again. */
  private readonly kept = new Map<ListKind, KeptList>();

  constructor(
    private readonly config: ServerConfig,
    private readonly deps: { policy: BreakerPolicy; now: () => number; memory?: ListMemory },
  ) {}

  /** Every list the server's capabilities announce; a list still fresh (its ttl) is taken as kept. */
  async discover(client: Client): Promise<void> {
    const caps = client.getServerCapabilities() ?? {};
    await Promise.all([
      caps.tools ? this.load(client, "tools") : undefined,
      caps.prompts ? this.load(client, "prompts") : undefined,
      caps.resources ? this.load(client, "resources") : undefined,
    ]);
  }

  private load(client: Client, kind: ListKind): Promise<void> | undefined {
    const now = this.deps.now();
    // A memory has every list this connection read too, and may have dropped one (a sign-in changed who is asking).
    const memory = this.deps.memory;
    const kept = memory?.freshList ? memory.freshList(this.config.name, kind, now) : this.kept.get(kind);
    if (!usable(kind, kept, now)) return this.refresh(client, kind);
    this.kept.set(kind, kept);
    // Checked by usable() above: the items are the spec's shapes.
    if (kind === "tools") this.tools = this.indexTools(kept.items as Tool[], tasksServed(client));
    else if (kind === "prompts") this.prompts = kept.items as Prompt[];
    else [this.resources, this.resourceTemplates] = [kept.items as Resource[], (kept.templates ?? []) as ResourceTemplate[]];
    return undefined;
  }

  /** Reads a list from the server (a connect with none fresh, or list_changed: a change makes a kept list stale). */
  async refresh(client: Client, kind: ListKind): Promise<void> {
    const options: RequestOptions = { timeout: this.config.timeoutMs };
    const fresh = new ListFreshness(this.deps.now());
    // One page per request, cursor by cursor: the SDK's listTools() & co. walk every page themselves
    // when given no cursor (and keep their own cache of the result), while the paging rules here are the host's.
    const page =
      <M extends ListMethod>(method: M) =>
      (cursor: string | undefined) =>
        client.request({ method, params: cursor === undefined ? {} : { cursor } }, options).then(fresh.page);
    let kept: KeptList | undefined;
    if (kind === "tools") {
      // On 2026 the SDK's listTools walks the pages (uncached: cacheMode bypass) and leaves out tools whose
      // x-mcp-header declarations are invalid (SEP-2243: a client MUST), a check it keeps to itself.
      const tools =
        client.getProtocolEra() === "modern"
          ? fresh.page(await client.listTools(undefined, { ...options, cacheMode: "bypass" })).tools
          : await listAll(page("tools/list"), (result) => result.tools);
      this.tools = this.indexTools(tools, tasksServed(client));
      kept = fresh.keep(tools);
    } else if (kind === "prompts") {
      this.prompts = await listAll(page("prompts/list"), (result) => result.prompts);
      kept = fresh.keep(this.prompts);
    } else {
      [this.resources, this.resourceTemplates] = await Promise.all([
        listAll(page("resources/list"), (result) => result.resources),
        listAll(page("resources/templates/list"), (result) => result.resourceTemplates),
      ]);
      kept = fresh.keep(this.resources, this.resourceTemplates);
    }
    if (kept) this.kept.set(kind, kept);
    else this.kept.delete(kind);
    this.deps.memory?.listed?.(this.config.name, kind, kept);
  }

  private indexTools(tools: Tool[], tasks: boolean): Map<string, DiscoveredTool> {
    const { includeTools, excludeTools } = this.config;
    const index = new Map<string, DiscoveredTool>();
    for (const tool of tools) {
      if (includeTools && !includeTools.includes(tool.name)) continue;
      if (excludeTools.includes(tool.name)) continue;
      // A tool that runs only as a task is offered where the server speaks the Tasks extension (tasks.ts).
      if (tool.execution?.taskSupport === "required" && !tasks) continue;
      let breaker = this.breakers.get(tool.name);
      if (!breaker) {
        breaker = new CircuitBreaker(this.deps.policy, this.deps.now);
        this.breakers.set(tool.name, breaker);
      }
      index.set(tool.name, {
        name: tool.name,
        qualifiedName: qualify(this.config.name, tool.name),
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
}

/** A 2026 connection to a server that names the Tasks extension: its task-only tools can be called. */
function tasksServed(client: Client): boolean {
  return client.getProtocolEra() === "modern" && client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION] !== undefined;
}

type ListMethod = "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list";

// A server that keeps returning next cursors is broken; stop rather than loop.
const MAX_PAGES = 100;

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
