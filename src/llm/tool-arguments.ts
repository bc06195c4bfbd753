// A streamed tool call's arguments, assembled as text by the provider (OpenAI's
// `arguments` deltas, Anthropic's `input_json_delta` pieces), read as the JSON object
// they must be. Anything else is reported, not guessed at: the call keeps what the model
// wrote (`rawArguments`, sent back to it as written) and why it cannot run
// (`argumentsError`, which the orchestrator feeds back instead of running it).
import { errorText } from "./errors";
import type { ToolCallRequest } from "./provider";

export function callFromText(id: string, name: string, text: string): ToolCallRequest {
  const raw = text.trim();
  if (raw === "") return { id, name, arguments: {} };
  let problem: string;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { id, name, arguments: value as Record<string, unknown> };
    problem = "arguments must be a JSON object";
  } catch (error) {
    problem = `arguments are not valid JSON: ${errorText(error)}`;
  }
  return { id, name, arguments: {}, providerData: { argumentsError: problem, rawArguments: text } };
}
