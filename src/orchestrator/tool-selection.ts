// Which tools a model request declares. Up to TOOL_SEARCH_THRESHOLD tools, all of
// them. Beyond that every declaration is paid in every model call (504 tools made
// a request of 326 KB), so a request declares the tools that matter for the turn:
// whole servers the conversation has already used, then the smallest servers, as
// long as they fit under the threshold; tools the model found with `search_tools`;
// and `search_tools` itself, a search over the rest of the catalogue. A tool the
// model calls by its exact name still runs even if it was not declared (the host
// knows every enabled tool); approval rules are the same either way.
import type { ToolView } from "../mcp/capabilities";
import type { ToolDeclaration } from "../llm/provider";
import type { TranscriptEntry } from "./transcript";
import { groupBy } from "../shared/group-by";

export const TOOL_SEARCH_THRESHOLD = 50;
export const SEARCH_TOOL = "search_tools";
/** The server name under which a search shows in the history and on the page: the host itself. */
export const HOST_SERVER = "edgehost";
const MAX_MATCHES = 8;

export interface ToolSelection {
  declared: ToolView[];
  /** Set when some tools are left out: the search tool's declaration. */
  search?: ToolDeclaration;
}

/** What the conversation tells about the tools it needs: servers it called, tools its searches found. */
export interface ToolContext {
  usedServers: Set<string>;
  found: Set<string>;
}

export function toolContext(history: readonly TranscriptEntry[]): ToolContext {
  const context: ToolContext = { usedServers: new Set(), found: new Set() };
  for (const entry of history) {
    if (entry.kind === "tool_call" && entry.server && entry.server !== HOST_SERVER) context.usedServers.add(entry.server);
    if (entry.kind === "tool_result" && entry.server === HOST_SERVER && entry.tool === SEARCH_TOOL) {
      for (const name of foundNames(entry.result)) context.found.add(name);
    }
  }
  return context;
}

export function selectTools(all: ToolView[], context: ToolContext, limit = TOOL_SEARCH_THRESHOLD): ToolSelection {
  if (all.length <= limit) return { declared: all };
  const byServer = groupBy(all, (t) => t.server);
  const chosen = new Set(all.filter((t) => context.found.has(t.functionName)).map((t) => t.functionName));
  const servers = [...byServer.entries()].sort(
    ([a, ta], [b, tb]) => Number(context.usedServers.has(b)) - Number(context.usedServers.has(a)) || ta.length - tb.length || a.localeCompare(b),
  );
  for (const [, tools] of servers) {
    const fresh = tools.filter((t) => !chosen.has(t.functionName));
    if (chosen.size + fresh.length > limit) continue;
    for (const t of fresh) chosen.add(t.functionName);
  }
  const declared = all.filter((t) => chosen.has(t.functionName));
  const hidden = [...byServer.entries()]
    .map(([server, tools]) => [server, tools.filter((t) => !chosen.has(t.functionName)).length] as const)
    .filter(([, n]) => n > 0)
    .map(([server, n]) => `${server} (${n})`);
  return {
    declared,
    search: {
      name: SEARCH_TOOL,
      description: `Finds more tools: ${all.length - declared.length} tools of these servers are not declared here: ${hidden.join(", ")}. Give keywords of what you need; the best matches (name, server, description) come back and can be called from the next step on.`,
      parameters: {
        type: "object",
        properties: { query: { type: "string", description: "Keywords: an action, an object, a server name." } },
        required: ["query"],
      },
    },
  };
}

/** The tools that best match `query`: a tool named exactly scores highest, then words found in its name (double) and text. */
export function searchTools(all: ToolView[], query: string): { tools: { name: string; server: string; description: string }[] } {
  const lower = query.toLowerCase();
  const names = new Set(lower.split(/\s+/).filter(Boolean));
  const words = lower.split(/[^a-z0-9]+/).filter((w) => w.length > 1 || /\d/.test(w));
  const scored = all
    .map((tool) => {
      const name = tool.functionName.toLowerCase();
      const text = `${tool.server} ${tool.title ?? ""} ${tool.description ?? ""}`.toLowerCase();
      const exact = names.has(name) || names.has(tool.name.toLowerCase()) ? 100 : 0;
      const score = words.reduce((n, w) => n + (name.split(/[^a-z0-9]+/).includes(w) ? 2 : 0) + (text.includes(w) ? 1 : 0), exact);
      return { tool, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score);
  return {
    tools: scored
      .slice(0, MAX_MATCHES)
      .map(({ tool }) => ({ name: tool.functionName, server: tool.server, description: firstLine(tool.description ?? tool.title ?? "") })),
  };
}

/** The tool names a stored search result holds (defensive: it comes back from storage). */
export function foundNames(result: unknown): string[] {
  const tools = typeof result === "object" && result !== null ? (result as { tools?: unknown }).tools : undefined;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t) =>
    typeof t === "object" && t !== null && typeof (t as { name?: unknown }).name === "string" ? [(t as { name: string }).name] : [],
  );
}

function firstLine(text: string): string {
  const line =
    text
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
