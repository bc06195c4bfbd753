// One turn of the tool loop: ask the model, stream its text, run the tool calls
// it makes (independent calls of a step in parallel, approval first where
// needed), feed results and errors back, and stop at an answer, the step limit,
// a cancel or an error. Knows nothing of WebSockets: it emits protocol events.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolView } from "../mcp/capabilities";
import { CancelledError, EdgehostError } from "../mcp/errors";
import type { McpHost } from "../mcp/host";
import type { ChatMessage, LlmProvider, ToolCallRequest, ToolCallResult } from "../llm/provider";
import type { NewEntry } from "../session/history";
import type { HistoryEntry, ServerMessage } from "../session/protocol";
import { buildSystemPrompt } from "./prompt";
import { historyToTurns, pruneToBudget } from "./prune";

export interface TurnLimits {
  maxSteps: number;
  tokenBudget: number;
  /** Longest tool result (characters) handed back to the model. */
  toolResultChars: number;
}

export interface TurnDeps {
  turnId: string;
  provider: LlmProvider;
  host: McpHost;
  /** Tools the model may see this turn (enabled servers only). */
  tools: () => ToolView[];
  history: () => HistoryEntry[];
  record: (entry: NewEntry) => HistoryEntry;
  emit: (message: ServerMessage) => void;
  /** Resolves true when the call may run (asks the user when the policy says so). */
  approve: (call: { callId: string; server: string; tool: string; arguments: Record<string, unknown> }) => Promise<boolean>;
  signal: AbortSignal;
  limits: TurnLimits;
  systemExtra?: string;
}

export type TurnEnd = "complete" | "cancelled" | "error" | "max_steps";

export async function runTurn(deps: TurnDeps): Promise<{ reason: TurnEnd; usage: { inputTokens: number; outputTokens: number } }> {
  const usage = { inputTokens: 0, outputTokens: 0 };
  const { turnId, signal } = deps;
  const guides = await deps.host.guides().catch(() => []);
  for (let step = 0; step < deps.limits.maxSteps; step++) {
    if (signal.aborted) return { reason: "cancelled", usage };
    const tools = deps.tools();
    const system = buildSystemPrompt({ tools, guides, extra: deps.systemExtra });
    const { messages } = pruneToBudget(historyToTurns(deps.history()), deps.limits.tokenBudget);
    const messageId = `${turnId}-${step}`;
    let text = "";
    let finishReason: string | undefined;
    const calls: ToolCallRequest[] = [];
    try {
      for await (const event of deps.provider.stream({
        system,
        messages,
        tools: tools.map((t) => ({ name: t.functionName, description: t.description ?? t.title ?? t.qualifiedName, parameters: t.inputSchema })),
        signal,
      })) {
        if (event.type === "text") {
          text += event.delta;
          deps.emit({ type: "text", turnId, messageId, delta: event.delta });
        } else if (event.type === "tool_call") {
          calls.push(event.call);
        } else if (event.type === "done") {
          finishReason = event.finishReason;
        } else if (event.type === "usage") {
          usage.inputTokens += event.inputTokens;
          usage.outputTokens += event.outputTokens;
        }
      }
    } catch (error) {
      if (text) deps.record({ turnId, kind: "assistant", text, partial: true });
      if (signal.aborted) return { reason: "cancelled", usage };
      throw error;
    }
    if (signal.aborted) {
      if (text) deps.record({ turnId, kind: "assistant", text, partial: true });
      return { reason: "cancelled", usage };
    }
    if (!text && calls.length === 0) {
      const why = finishReason && !/^(STOP|stop|FINISH_REASON_UNSPECIFIED)$/.test(finishReason) ? ` (finish reason: ${finishReason})` : "";
      deps.record({ turnId, kind: "notice", text: `The model returned an empty answer${why}.` });
      return { reason: "complete", usage };
    }
    deps.record({ turnId, kind: "assistant", text, toolCalls: calls.length > 0 ? calls : undefined });
    if (calls.length === 0) return { reason: "complete", usage };
    await Promise.all(calls.map((call) => runCall(call, tools, deps)));
    if (signal.aborted) return { reason: "cancelled", usage };
  }
  deps.record({ turnId, kind: "notice", text: `Stopped after ${deps.limits.maxSteps} tool steps without a final answer.` });
  return { reason: "max_steps", usage };
}

async function runCall(call: ToolCallRequest, tools: ToolView[], deps: TurnDeps): Promise<void> {
  const { turnId, signal } = deps;
  const tool = tools.find((t) => t.functionName === call.name) ?? tools.find((t) => t.qualifiedName === call.name);
  const server = tool?.server ?? "unknown";
  const toolName = tool?.name ?? call.name;
  deps.record({ turnId, kind: "tool_call", callId: call.id, server, tool: toolName, arguments: call.arguments });
  const finish = (outcome: Pick<ToolCallResult, "result" | "error">, durationMs: number, display?: unknown) => {
    deps.record({ turnId, kind: "tool_result", callId: call.id, server, tool: toolName, durationMs, ...outcome });
    deps.emit({
      type: "status",
      turnId,
      callId: call.id,
      server,
      tool: toolName,
      state: outcome.error !== undefined ? "error" : "complete",
      ...(outcome.error !== undefined ? { error: outcome.error } : { result: display ?? outcome.result }),
      durationMs,
    });
  };
  if (!tool) {
    // Hallucinated or stale name: tell the model what exists so it can correct itself.
    const names = tools.map((t) => t.functionName).join(", ");
    finish({ error: `Unknown tool "${call.name}". Available tools: ${names || "none"}.` }, 0);
    return;
  }
  const argumentsError = call.providerData?.argumentsError;
  if (typeof argumentsError === "string") {
    finish({ error: `The call could not be run: ${argumentsError}` }, 0);
    return;
  }
  deps.emit({ type: "status", turnId, callId: call.id, server, tool: toolName, state: "processing", arguments: call.arguments });
  if (!(await deps.approve({ callId: call.id, server, tool: toolName, arguments: call.arguments }))) {
    finish({ error: signal.aborted ? "Cancelled by the user." : "The user denied this tool call." }, 0);
    return;
  }
  const started = Date.now();
  try {
    const result = await deps.host.callTool(tool.qualifiedName, call.arguments, {
      signal,
      onProgress: (progress) => deps.emit({ type: "status", turnId, callId: call.id, server, tool: toolName, state: "progress", progress }),
    });
    const forModel = toModelResult(result, deps.limits.toolResultChars);
    if (result.isError) finish({ error: typeof forModel === "string" ? forModel : JSON.stringify(forModel) }, Date.now() - started);
    else finish({ result: forModel }, Date.now() - started);
  } catch (error) {
    const message = error instanceof CancelledError ? "Cancelled by the user." : error instanceof EdgehostError ? error.message : "The tool call failed.";
    finish({ error: message }, Date.now() - started);
  }
}

/** Reduces an MCP tool result to what a model can read: text, structured content, placeholders for media. */
export function toModelResult(result: CallToolResult, maxChars: number): unknown {
  if (result.structuredContent && !result.isError) return result.structuredContent;
  const parts = result.content.map((part) => {
    if (part.type === "text") return part.text;
    if (part.type === "resource") return "text" in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
    if (part.type === "resource_link") return `[resource link ${part.uri}]`;
    return `[${part.type} omitted]`;
  });
  const text = parts.join("\n");
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n…[truncated ${text.length - maxChars} characters]` : text;
}

export type { ChatMessage };
