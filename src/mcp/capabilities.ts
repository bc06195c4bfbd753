// The shapes the host hands out about servers and tools: plain data, safe to send
// to a browser (no schemas compiled, no breakers, no secrets from the config). The
// zod schemas here are the one definition; the HTTP API and the WebSocket protocol
// pick from them.
import type { Implementation, Prompt, Resource, ResourceTemplateType as ResourceTemplate } from "@modelcontextprotocol/client";
import { z } from "zod";
import { ServerStateSchema, type DiscoveredTool } from "./connection";
import type { FunctionNameMap } from "./names";
import type { TransportKind } from "./transports";

const JsonObject = z.record(z.string(), z.unknown());

export const ToolViewSchema = z.object({
  server: z.string(),
  name: z.string(),
  qualifiedName: z.string(),
  /** Name to give a model: valid for Gemini and OpenAI function calling. */
  functionName: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonObject,
  outputSchema: JsonObject.optional(),
  annotations: JsonObject.optional(),
  /** MCP Apps: the `ui://` resource that renders this tool's results. */
  uiResourceUri: z.string().optional(),
  /** MCP Apps: who may call it, when the server says (["app"]: kept from the model). */
  uiVisibility: z.array(z.enum(["model", "app"])).optional(),
});
export type ToolView = z.infer<typeof ToolViewSchema>;

export interface ServerCapabilitiesView {
  name: string;
  transport: TransportKind | "unknown";
  serverInfo?: Implementation;
  instructions?: string;
  tools: ToolView[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

export const ServerStatusSchema = z.object({
  name: z.string(),
  state: ServerStateSchema,
  transport: z.string().optional(),
  /** The MCP revision the last connect negotiated (e.g. "2026-07-28", "2025-11-25"). */
  protocol: z.string().optional(),
  toolCount: z.number().int(),
  lastError: z.string().optional(),
  retryAfterMs: z.number().optional(),
  pid: z.number().optional(),
});
export type ServerStatus = z.infer<typeof ServerStatusSchema> & { transport?: TransportKind };

export function toPublicTool(tool: DiscoveredTool, names: FunctionNameMap): ToolView {
  const server = tool.qualifiedName.slice(0, tool.qualifiedName.length - tool.name.length - 1);
  return {
    server,
    name: tool.name,
    qualifiedName: tool.qualifiedName,
    functionName: names.functionName(tool.qualifiedName) ?? tool.qualifiedName,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
    ...(tool.uiResourceUri ? { uiResourceUri: tool.uiResourceUri } : {}),
    ...(tool.uiVisibility ? { uiVisibility: tool.uiVisibility } : {}),
  };
}
