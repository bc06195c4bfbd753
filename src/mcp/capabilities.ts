// The shapes the host hands out about servers and tools: plain data, safe to send
// to a browser (no schemas compiled, no breakers, no secrets from the config).
import type { Implementation, Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { DiscoveredTool, ServerState } from "./connection";
import type { FunctionNameMap } from "./names";
import type { TransportKind } from "./transports";

export interface ToolView {
  server: string;
  name: string;
  qualifiedName: string;
  /** Name to give a model: valid for Gemini and OpenAI function calling. */
  functionName: string;
  title?: string;
  description?: string;
  inputSchema: Tool["inputSchema"];
  outputSchema?: Tool["outputSchema"];
  annotations?: Tool["annotations"];
}

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

export interface ServerStatus {
  name: string;
  state: ServerState;
  transport?: TransportKind;
  toolCount: number;
  lastError?: string;
  retryAfterMs?: number;
  pid?: number;
}

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
  };
}
