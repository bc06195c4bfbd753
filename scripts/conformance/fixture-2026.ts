// The tools and prompt the suite's 2026-07-28 server scenarios call by name
// (input-required-result-*, server-stateless's diagnostic tools), written as a 2025 server
// would write them: it asks its client with JSON-RPC requests (elicitation, sampling,
// roots) and gets the answers back as responses. Behind the bridge those questions become
// `input_required` results. The suite names the keys it expects in `inputRequests`
// ("user_name", "capital_question", …); a 2025 child names a question for the bridge with
// `_meta["edgehost.bridge/inputKey"]` (local-bridge/src/modern-protocol.ts questionKey).
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  CreateMessageResultSchema,
  ElicitResultSchema,
  type GetPromptResult,
  ListRootsResultSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Json = Record<string, unknown>;

const INPUT_KEY = "edgehost.bridge/inputKey";
const empty = { type: "object" as const, properties: {} };
const tool = (name: string, description: string): Tool => ({ name, description, inputSchema: empty });
const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

export const tools2026: Tool[] = [
  tool("test_input_required_result_elicitation", "Asks the user's name (key user_name), then greets them"),
  tool("test_input_required_result_sampling", "Asks the client's model a question (key capital_question)"),
  tool("test_input_required_result_list_roots", "Asks for the client's roots (key client_roots)"),
  tool("test_input_required_result_capabilities", "Asks by elicitation, or by sampling when the client cannot be asked that way"),
  tool("test_input_required_result_multi_round", "Asks step1, then step2, then answers"),
  tool("test_input_required_result_multiple_inputs", "Asks by elicitation, sampling and roots/list at once"),
  tool("test_input_required_result_request_state", "Asks for a confirmation, then answers state-ok"),
  tool("test_input_required_result_tampered_state", "Asks for a confirmation (the suite then tampers with the state)"),
  tool("test_missing_capability", "Needs sampling: fails when the client cannot sample"),
  tool("test_streaming_elicitation", "Asks by elicitation while the call runs"),
  tool("test_logging_tool", "Logs a line, then answers"),
  tool("test_trigger_tool_change", "Adds or removes the tool test_extra_tool and announces tools/list_changed"),
  tool("test_trigger_prompt_change", "Adds or removes the prompt test_extra_prompt and announces prompts/list_changed"),
];

/** What the change triggers toggle: lists (fixture-server.ts) add these while they are on. */
export const extras = { tool: false, prompt: false };
export const extraTool = tool("test_extra_tool", "Listed while test_trigger_tool_change has it on");
export const extraPrompt = { name: "test_extra_prompt", description: "Listed while test_trigger_prompt_change has it on" };

export const prompt2026 = {
  name: "test_input_required_result_prompt",
  description: "A prompt that asks for context (key user_context) before it is written",
};

const named = (key: string) => ({ _meta: { [INPUT_KEY]: key } });
const elicit = (extra: Extra, key: string, message: string, field: string, type = "string") =>
  extra
    .sendRequest(
      {
        method: "elicitation/create",
        params: { message, requestedSchema: { type: "object", properties: { [field]: { type } }, required: [field] }, ...named(key) },
      } as ServerRequest,
      ElicitResultSchema,
    )
    .then((answer) => (answer.content ?? {}) as Json);
const sample = (extra: Extra, key: string, prompt: string, maxTokens: number) =>
  extra.sendRequest(
    {
      method: "sampling/createMessage",
      params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens, ...named(key) },
    } as ServerRequest,
    CreateMessageResultSchema,
  );
const roots = (extra: Extra, key: string) => extra.sendRequest({ method: "roots/list", params: named(key) } as ServerRequest, ListRootsResultSchema);

/** The call's result, or undefined when the tool is not one of these. */
export async function call2026(name: string, extra: Extra): Promise<CallToolResult | undefined> {
  switch (name) {
    case "test_input_required_result_elicitation":
      return text(`Hello, ${String((await elicit(extra, "user_name", "What is your name?", "name")).name)}!`);
    case "test_input_required_result_sampling":
      return text(`The model said: ${JSON.stringify((await sample(extra, "capital_question", "What is the capital of France?", 100)).content)}`);
    case "test_input_required_result_list_roots":
      return text(`Roots: ${JSON.stringify((await roots(extra, "client_roots")).roots)}`);
    case "test_input_required_result_capabilities":
      // A 2025 server cannot read the client's capabilities per request: it tries, and falls back.
      try {
        return text(`Hello, ${String((await elicit(extra, "user_name", "What is your name?", "name")).name)}!`);
      } catch {
        return text(`The model said: ${JSON.stringify((await sample(extra, "capital_question", "What is the capital of France?", 100)).content)}`);
      }
    case "test_input_required_result_multi_round": {
      const first = await elicit(extra, "step1", "Step 1: What is your name?", "name");
      const second = await elicit(extra, "step2", "Step 2: What is your favorite color?", "color");
      return text(`${String(first.name)} likes ${String(second.color)}`);
    }
    case "test_input_required_result_multiple_inputs": {
      const [who, greeting, listed] = await Promise.all([
        elicit(extra, "user_name", "What is your name?", "name"),
        sample(extra, "greeting", "Generate a greeting", 50),
        roots(extra, "client_roots"),
      ]);
      return text(`${String(who.name)}: ${JSON.stringify(greeting.content)}, roots ${JSON.stringify(listed.roots)}`);
    }
    case "test_input_required_result_request_state":
    case "test_input_required_result_tampered_state":
      // The bridge checks the requestState before the answer reaches this server at all.
      return text(`state-ok: confirmed=${String((await elicit(extra, "confirm", "Please confirm", "ok", "boolean")).ok)}`);
    case "test_missing_capability":
      // Fails when the client cannot sample; the bridge tells a 2026 client which capability was missing.
      return text(`The model said: ${JSON.stringify((await sample(extra, "sample", "Say hi", 10)).content)}`);
    case "test_streaming_elicitation":
      return text(`Noted: ${String((await elicit(extra, "note", "Anything to add?", "note")).note)}`);
    case "test_trigger_tool_change":
      extras.tool = !extras.tool;
      await extra.sendNotification({ method: "notifications/tools/list_changed" });
      return text(`test_extra_tool ${extras.tool ? "added" : "removed"}`);
    case "test_trigger_prompt_change":
      extras.prompt = !extras.prompt;
      await extra.sendNotification({ method: "notifications/prompts/list_changed" });
      return text(`test_extra_prompt ${extras.prompt ? "added" : "removed"}`);
    case "test_logging_tool":
      await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: "test_logging_tool ran" } });
      return text("logged");
    default:
      return undefined;
  }
}

export async function prompt2026Messages(extra: Extra): Promise<GetPromptResult> {
  const answer = await elicit(extra, "user_context", "What context should the prompt use?", "context");
  return { messages: [{ role: "user", content: { type: "text", text: `Context: ${String(answer.context)}` } }] };
}
