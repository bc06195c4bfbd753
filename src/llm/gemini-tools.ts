// The request's tool declarations in the Gemini API's own shape (gemini.ts sends them as
// given in `extraBody`), each schema through sanitizeForGemini. Both are kept per object:
// MCP tool schemas stay the same objects between calls, and a turn keeps one declarations
// list while its tools stay the same, so each step's request reuses what the first built.
import { sanitizeForGemini } from "./gemini-schema";
import type { LlmRequest } from "./provider";

const sanitizedSchemas = new WeakMap<object, ReturnType<typeof sanitizeForGemini>>();
function sanitizedOnce(schema: Record<string, unknown>): ReturnType<typeof sanitizeForGemini> {
  let sanitized = sanitizedSchemas.get(schema);
  if (!sanitized) {
    sanitized = sanitizeForGemini(schema);
    sanitizedSchemas.set(schema, sanitized);
  }
  return sanitized;
}

type ToolsBody = { functionDeclarations: { name: string; description: string; parametersJsonSchema: unknown }[] }[];
const toolsBodies = new WeakMap<LlmRequest["tools"], ToolsBody>();
/** The request's `tools` for GeminiProvider.stream, built once per declarations list (orchestrator/turn.ts keeps one). */
export function toolsBody(tools: LlmRequest["tools"]): ToolsBody {
  let body = toolsBodies.get(tools);
  if (!body) {
    body = [
      { functionDeclarations: tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: sanitizedOnce(tool.parameters) })) },
    ];
    toolsBodies.set(tools, body);
  }
  return body;
}
