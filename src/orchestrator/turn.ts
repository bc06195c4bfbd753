// One turn of the tool loop: ask the model, stream its text, run the tool calls
// it makes (independent calls of a step in parallel, approval first where
// needed), feed results and errors back (with their images and audio, within one
// media budget per turn: tool-results.ts), and stop at an answer, the step limit,
// a cancel or an error. The conversation is built once from history when the turn
// starts and grows in memory across steps; each new entry goes to the host through
// the port (which only appends it). Knows nothing of WebSockets or storage.
import type { ToolView } from "../mcp/capabilities";
import { CancelledError, ToolTimeoutError } from "../mcp/errors";
import { EdgehostError } from "../shared/errors";
import type { ServerGuide } from "../mcp/guide";
import type { McpHost } from "../mcp/host";
import type { ChatMessage, LlmProvider, MediaPart, ToolCallRequest, ToolCallResult, ToolDeclaration } from "../llm/provider";
import { buildSystemPrompt } from "./prompt";
import { historyToTurns, pruneSized, pruneToBudget, type Turn } from "./prune";
import { fitUserMedia } from "./resource-parts";
import { MediaBudget, reduceToolResult, USER_MEDIA_BUDGET, USER_MEDIA_PART_LIMIT } from "./tool-results";
import { HOST_SERVER, SEARCH_TOOL, searchTools, selectTools, toolContext, type ToolContext } from "./tool-selection";
import type { ApprovalDecision, CallAudit, ToolStatus, TranscriptEntry, TurnEnd, TurnPort, TurnUsage } from "./transcript";

export interface TurnLimits {
  maxSteps: number;
  tokenBudget: number;
  /** Longest tool result (characters) handed back to the model. */
  toolResultChars: number;
}

export interface TurnDeps {
  turnId: string;
  provider: LlmProvider;
  host: Pick<McpHost, "callTool">;
  /** Tools the model may see (enabled servers only); read at each step, as servers come and go. */
  tools: () => ToolView[];
  guides: ServerGuide[];
  /** The stored conversation, ending with this turn's user message. */
  history: readonly TranscriptEntry[];
  /** The same conversation already built into measured turns (the session keeps it between turns): used instead of building it from `history`. */
  conversation?: readonly Turn[];
  port: TurnPort;
  signal: AbortSignal;
  limits: TurnLimits;
  systemExtra?: string;
  /** The person's own instructions and their chat's preset: after everything else in the system prompt (prompt.ts). */
  systemPersonal?: string;
}

/**
 * The model's view of the tools, rebuilt only when the host's tool list changes or a
 * search found more: what is declared (tool-selection.ts) and the system prompt.
 */
class ToolIndex {
  private source?: ToolView[];
  private byFunction = new Map<string, ToolView>();
  private dirty = true;
  declarations: ToolDeclaration[] = [];
  system = "";
  searchable = false;

  constructor(private readonly context: ToolContext) {}

  refresh(tools: ToolView[], guides: ServerGuide[], extra: string | undefined, personal?: string): void {
    if (tools === this.source && !this.dirty) return;
    this.dirty = false;
    this.source = tools;
    this.byFunction = new Map(tools.map((t) => [t.functionName, t]));
    for (const t of tools) if (!this.byFunction.has(t.qualifiedName)) this.byFunction.set(t.qualifiedName, t);
    const selection = selectTools(tools, this.context);
    this.searchable = selection.search !== undefined;
    this.declarations = selection.declared.map((t) => ({
      name: t.functionName,
      description: t.description ?? t.title ?? t.qualifiedName,
      parameters: t.inputSchema,
    }));
    if (selection.search) this.declarations.push(selection.search);
    this.system = buildSystemPrompt({ tools, guides, extra, personal, searchable: this.searchable });
  }

  /** Any enabled tool, declared or not: a model that names one exactly may call it. */
  find(name: string): ToolView | undefined {
    return this.byFunction.get(name);
  }

  /** Tools a search found: declared from the next step on. */
  reveal(names: string[]): void {
    for (const name of names) this.context.found.add(name);
    this.dirty = true;
  }

  search(query: string): ReturnType<typeof searchTools> {
    return searchTools(this.source ?? [], query);
  }

  names(): string {
    return this.declarations.map((d) => d.name).join(", ");
  }
}

export async function runTurn(deps: TurnDeps): Promise<{ reason: TurnEnd; usage: TurnUsage }> {
  const usage: TurnUsage = { inputTokens: 0, outputTokens: 0 };
  const { turnId, signal, port } = deps;
  const index = new ToolIndex(toolContext(deps.history));
  // Media stay in `messages` for the rest of the turn (every later request sends them again): what the user
  // attached (resources, files) within its own budget, newest first, and tool results within theirs.
  const budget = new MediaBudget();
  const userBudget = new MediaBudget(USER_MEDIA_BUDGET, USER_MEDIA_PART_LIMIT);
  const { tokenBudget } = deps.limits;
  const pruned = deps.conversation ? pruneSized(deps.conversation, tokenBudget) : pruneToBudget(historyToTurns(deps.history), tokenBudget);
  const messages: ChatMessage[] = fitUserMedia(pruned.messages, userBudget);
  for (let step = 0; step < deps.limits.maxSteps; step++) {
    if (signal.aborted) return { reason: "cancelled", usage };
    index.refresh(deps.tools(), deps.guides, deps.systemExtra, deps.systemPersonal);
    const messageId = `${turnId}-${step}`;
    let text = "";
    let finishReason: string | undefined;
    const calls: ToolCallRequest[] = [];
    try {
      for await (const event of deps.provider.stream({ system: index.system, messages, tools: index.declarations, signal })) {
        if (event.type === "text") {
          text += event.delta;
          port.text(messageId, event.delta);
        } else if (event.type === "tool_call") {
          calls.push(withOwnId(event.call, `${turnId}.${step}.${calls.length}`));
        } else if (event.type === "done") {
          finishReason = event.finishReason;
        } else if (event.type === "usage") {
          usage.inputTokens += event.inputTokens;
          usage.outputTokens += event.outputTokens;
        }
      }
    } catch (error) {
      if (text) port.record({ kind: "assistant", text, partial: true });
      if (signal.aborted) return { reason: "cancelled", usage };
      throw error;
    }
    if (signal.aborted) {
      if (text) port.record({ kind: "assistant", text, partial: true });
      return { reason: "cancelled", usage };
    }
    if (!text && calls.length === 0) {
      const why = finishReason && !/^(STOP|stop|end_turn|FINISH_REASON_UNSPECIFIED)$/.test(finishReason) ? ` (finish reason: ${finishReason})` : "";
      port.record({ kind: "notice", text: `The model returned an empty answer${why}.` });
      return { reason: "complete", usage };
    }
    port.record({ kind: "assistant", text, toolCalls: calls.length > 0 ? calls : undefined });
    messages.push({ role: "assistant", text, toolCalls: calls.length > 0 ? calls : undefined });
    if (calls.length === 0) return { reason: "complete", usage };
    const results = await Promise.all(calls.map((call) => runCall(call, index, budget, deps)));
    messages.push({ role: "tool", results });
    if (signal.aborted) return { reason: "cancelled", usage };
  }
  port.record({ kind: "notice", text: `Stopped after ${deps.limits.maxSteps} tool steps without a final answer.` });
  return { reason: "max_steps", usage };
}

/**
 * The call under an id of ours, unique within the session (the turn's id is): the model's
 * id may repeat within one response or across turns, and an approval, a card and a history
 * entry are keyed by it. The model's id stays in `providerData` to answer the model with.
 */
function withOwnId(call: ToolCallRequest, id: string): ToolCallRequest {
  return { ...call, id, providerData: { ...call.providerData, modelCallId: call.id } };
}

async function runCall(call: ToolCallRequest, index: ToolIndex, budget: MediaBudget, deps: TurnDeps): Promise<ToolCallResult> {
  const { signal, port } = deps;
  if (call.name === SEARCH_TOOL && index.searchable && !index.find(call.name)) return runSearch(call, index, port);
  const tool = index.find(call.name);
  const server = tool?.server ?? "unknown";
  const toolName = tool?.name ?? call.name;
  port.record({ kind: "tool_call", callId: call.id, server, tool: toolName, arguments: call.arguments });
  const status = (rest: Pick<ToolStatus, "state"> & Partial<ToolStatus>) => port.status({ callId: call.id, server, tool: toolName, ...rest });
  /** `recorded` is what the history and the page get: the model's text plus a note in place of the media. */
  const finish = (outcome: { result?: unknown; error?: string }, durationMs: number, media: MediaPart[] = [], recorded = outcome): ToolCallResult => {
    port.record({ kind: "tool_result", callId: call.id, server, tool: toolName, durationMs, ...recorded });
    const failed = recorded.error !== undefined;
    // The page shows and plays the media of a completed call; they are never stored.
    status({
      state: failed ? "error" : "complete",
      ...(failed ? { error: recorded.error } : { result: recorded.result, ...(media.length > 0 ? { media } : {}) }),
      durationMs,
    });
    return { id: call.id, name: call.name, ...outcome, ...(media.length > 0 ? { media } : {}) };
  };
  if (!tool) {
    // Hallucinated or stale name: tell the model what exists so it can correct itself.
    return finish({ error: `Unknown tool "${call.name}". Available tools: ${index.names() || "none"}.` }, 0);
  }
  const argumentsError = call.providerData?.argumentsError;
  if (typeof argumentsError === "string") return finish({ error: `The call could not be run: ${argumentsError}` }, 0);
  status({ state: "processing", arguments: call.arguments });
  const asked = Date.now();
  const decision = await port.approve({ callId: call.id, server, tool: toolName, arguments: call.arguments });
  /** The audit trail's row, in the same tick as the call's `tool_result` entry (each `finish` below follows it). */
  const audit = (end: Pick<CallAudit, "status" | "durationMs" | "result" | "errorCode">) =>
    port.audited?.({ callId: call.id, server, tool: toolName, arguments: call.arguments, decision, at: asked, endedAt: Date.now(), ...end });
  if (!decision.allowed) {
    audit({ status: deniedEnd(decision, signal), durationMs: 0 });
    return finish({ error: signal.aborted ? "Cancelled by the user." : "The user denied this tool call." }, 0);
  }
  const started = Date.now();
  try {
    const result = await deps.host.callTool(tool.qualifiedName, call.arguments, {
      signal,
      callId: call.id,
      onProgress: (progress) => status({ state: "progress", progress }),
    });
    const { value, media, recorded } = reduceToolResult(result, deps.limits.toolResultChars, budget);
    const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
    audit({ status: result.isError ? "tool_error" : "ok", durationMs: Date.now() - started, result });
    // An error's media (a screenshot of what went wrong) still reach the model.
    if (result.isError) return finish({ error: text(value) }, Date.now() - started, media, { error: text(recorded) });
    return finish({ result: value }, Date.now() - started, media, { result: recorded });
  } catch (error) {
    const message = error instanceof CancelledError ? "Cancelled by the user." : error instanceof EdgehostError ? error.message : "The tool call failed.";
    audit({ durationMs: Date.now() - started, ...failedEnd(error) });
    return finish({ error: message }, Date.now() - started);
  }
}

/** A call that did not run: denied (or no answer in time), or cancelled with its turn. */
function deniedEnd(decision: ApprovalDecision, signal: AbortSignal): CallAudit["status"] {
  return decision.answer === "cancelled" || signal.aborted ? "cancelled" : "denied";
}

/** A call that threw: how the trail says it ended, and the public error code (never the message). */
export function failedEnd(error: unknown): Pick<CallAudit, "status" | "errorCode"> {
  if (error instanceof CancelledError) return { status: "cancelled" };
  if (error instanceof ToolTimeoutError) return { status: "timeout", errorCode: error.code };
  if (error instanceof EdgehostError) return { status: "error", errorCode: error.toPublic().code };
  return { status: "error", errorCode: "internal" };
}

/** `search_tools`: the host's own tool, over the session's enabled tools; it reads nothing else, so it needs no approval. */
function runSearch(call: ToolCallRequest, index: ToolIndex, port: TurnPort): ToolCallResult {
  const base = { callId: call.id, server: HOST_SERVER, tool: SEARCH_TOOL };
  port.record({ kind: "tool_call", ...base, arguments: call.arguments });
  const query = typeof call.arguments.query === "string" ? call.arguments.query : "";
  const result = index.search(query);
  index.reveal(result.tools.map((t) => t.name));
  port.record({ kind: "tool_result", ...base, durationMs: 0, result });
  port.status({ ...base, state: "complete", result, durationMs: 0 });
  return { id: call.id, name: call.name, result };
}
