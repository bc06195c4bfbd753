// The person's tools, prompts and resources as an MCP client of /mcp sees them. A tool is
// named as the chat's model knows it (`server__tool`, src/mcp/names.ts: valid for every
// client's name rule), with its qualified name in `_meta`; with MCP_GATEWAY_NAMES=bare a
// tool no other offered tool shares a name with keeps its own. Tools only an MCP App may
// call (`uiVisibility: ["app"]`) are left out, as they are from the chat's model (SessionMcp).
// The map back from a client's name is this catalogue's, never parsed from the name.
import type { ToolView } from "../mcp/capabilities";

export const QUALIFIED_META = "io.edgehost/qualifiedName";

export interface ClientTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema?: { type: "object"; [key: string]: unknown };
  annotations?: Record<string, unknown>;
  _meta: Record<string, unknown>;
}

export class ToolCatalogue {
  readonly tools: ClientTool[];
  private readonly back = new Map<string, ToolView>();

  constructor(views: readonly ToolView[], names: "chat" | "bare") {
    const counts = new Map<string, number>();
    for (const v of views) counts.set(v.name, (counts.get(v.name) ?? 0) + 1);
    this.tools = views.map((view) => {
      const bare = names === "bare" && counts.get(view.name) === 1 && !views.some((o) => o !== view && o.functionName === view.name);
      const name = bare ? view.name : view.functionName;
      this.back.set(name, view);
      return {
        name,
        ...(view.title ? { title: view.title } : {}),
        ...(view.description ? { description: view.description } : {}),
        inputSchema: { ...view.inputSchema, type: "object" },
        ...(view.outputSchema ? { outputSchema: { ...view.outputSchema, type: "object" } } : {}),
        ...(view.annotations ? { annotations: view.annotations } : {}),
        _meta: { [QUALIFIED_META]: view.qualifiedName },
      };
    });
  }

  /** The tool a client's name means (undefined: no tool offered under it). */
  resolve(name: string): ToolView | undefined {
    return this.back.get(name);
  }
}

/** A prompt as the chat's API names it: `server.prompt` (server names have no dots). */
export const promptName = (server: string, prompt: string) => `${server}.${prompt}`;
