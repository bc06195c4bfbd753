// A server's `sampling/createMessage`, answered by the session's model once the user
// approved it. What is honoured: the messages (text, image and audio content, each
// provider's own form), systemPrompt, maxTokens (capped by SAMPLING_MAX_TOKENS),
// temperature, stopSequences, and modelPreferences as sampling-model.ts decides.
// Not honoured, and said so: `tools` / `toolChoice` (refused: this host does not run
// a tool loop for a server), `includeContext` other than "none" (the host does not
// declare `sampling.context`, so the spec lets it send no context; it sends none).
import type { CreateMessageRequest, CreateMessageResult, ModelPreferences } from "@modelcontextprotocol/client";
import type { ChatMessage, LlmProvider, MediaPart } from "../llm/provider";
import { mediaNames } from "../llm/media";
import { chooseSamplingModel } from "./sampling-model";
import { MediaBudget } from "./tool-results";
import { rpcRefusal } from "../mcp/rpc-refusal";

export type SamplingParams = CreateMessageRequest["params"];

/** OpenAI's chat completions take at most 4 stop sequences (Gemini 5): the smaller bound for both. */
const MAX_STOP_SEQUENCES = 4;

export interface SamplingDeps {
  provider: LlmProvider;
  /** SAMPLING_MODELS: models a server may get by hint or priorities, cheapest first. */
  models: readonly string[];
  /** SAMPLING_MAX_TOKENS: a larger `maxTokens` is lowered to this. */
  maxTokensCap: number;
  /** Asks the user; `summary` is what the dialog shows. */
  approve: (summary: string, signal: AbortSignal) => Promise<boolean>;
  /** Tokens the answer cost, for the user's daily budget; called once whatever happened (it ends the hold). */
  used?: (tokens: number) => Promise<void> | void;
  /** Holds the answer's worst case against the user's daily budget; why no model may be asked now, or undefined. */
  refusal?: (worstCase: number) => Promise<string | undefined>;
  /**
   * The session's model registry (sampling-model.ts: chooseFromRegistry): which model answers,
   * among every one the session may use. Without it, `provider` answers with a model of
   * `models` by chooseSamplingModel.
   */
  choose?: (preferences: ModelPreferences | undefined) => Promise<RegistryPick>;
}

/** The model that answers, as the session's registry picked it. */
export interface RegistryPick {
  /** As the dialog names it: the model, or `provider/model` when it is not the session's provider. */
  label: string;
  /** The model's name, for the result. */
  model: string;
  reason: string;
  provider: LlmProvider;
  /** Counted against the daily budget (false: the user's own key). */
  budgeted: boolean;
}

type Block = Extract<SamplingParams["messages"][number]["content"], { type: string }>;

const invalid = (message: string) => rpcRefusal("bad_request", message);

export async function answerSampling(params: SamplingParams, deps: SamplingDeps, signal: AbortSignal): Promise<CreateMessageResult> {
  if ((params.tools?.length ?? 0) > 0 || params.toolChoice)
    throw invalid("sampling with tools is not supported by this host: send the request without `tools`");
  const stops = params.stopSequences ?? [];
  if (stops.length > MAX_STOP_SEQUENCES) throw invalid(`at most ${MAX_STOP_SEQUENCES} stopSequences are supported (got ${stops.length})`);
  if (!Number.isInteger(params.maxTokens) || params.maxTokens < 1) throw invalid("maxTokens must be a positive integer");
  const maxTokens = Math.min(params.maxTokens, deps.maxTokensCap);
  // Both providers take 0 to 2.
  const temperature = params.temperature === undefined ? undefined : Math.min(2, Math.max(0, params.temperature));
  const picked = deps.choose ? await deps.choose(params.modelPreferences) : undefined;
  const choice = picked ? { model: picked.label, reason: picked.reason } : chooseSamplingModel(params.modelPreferences, deps.models, deps.provider.model);
  const messages = toChatMessages(params.messages);
  // The prompt's size in tokens, roughly (4 characters each), plus the most the answer may take.
  const promptChars = (params.systemPrompt?.length ?? 0) + JSON.stringify(params.messages).length;
  // A model on the user's own key is not held against the deployment's budget.
  const budgeted = picked?.budgeted ?? true;
  const refused = budgeted ? await deps.refusal?.(maxTokens + Math.ceil(promptChars / 4)) : undefined;
  if (refused) throw rpcRefusal("budget_exhausted", refused);
  const spent = { tokens: 0 };
  try {
    return await ask(params, deps, signal, { maxTokens, temperature, stops, choice, messages, picked }, spent);
  } finally {
    if (budgeted) await deps.used?.(spent.tokens);
  }
}

/** The user's approval, then the model's answer; `spent` counts its tokens as they are reported. */
async function ask(
  params: SamplingParams,
  deps: SamplingDeps,
  signal: AbortSignal,
  {
    maxTokens,
    temperature,
    stops,
    choice,
    messages,
    picked,
  }: {
    maxTokens: number;
    temperature?: number;
    stops: string[];
    choice: ReturnType<typeof chooseSamplingModel>;
    messages: ChatMessage[];
    picked?: RegistryPick;
  },
  spent: { tokens: number },
): Promise<CreateMessageResult> {
  const limits = [
    `model ${choice.model} (${choice.reason})`,
    `at most ${maxTokens} tokens${maxTokens < params.maxTokens ? ` (asked ${params.maxTokens})` : ""}`,
  ];
  if (temperature !== undefined) limits.push(`temperature ${temperature}`);
  if (stops.length > 0) limits.push(`stops at ${stops.map((s) => JSON.stringify(s)).join(", ")}`);
  const summary = [
    ...(params.systemPrompt ? [`system: ${params.systemPrompt}`] : []),
    ...messages.map(
      (m) =>
        `${m.role}: ${[m.role === "tool" ? "" : m.text, m.role === "user" && m.parts?.length ? `[${mediaNames(m.parts.filter((p): p is MediaPart => p.type !== "text")).join(", ")}]` : ""].filter(Boolean).join(" ")}`,
    ),
    `— ${limits.join(", ")}`,
  ].join("\n");
  if (!(await deps.approve(summary, signal))) throw rpcRefusal("denied", "the user declined the sampling request");

  let text = "";
  let finishReason = "";
  let stopSequence: string | undefined;
  const provider = picked?.provider ?? deps.provider;
  for await (const event of provider.stream({
    system: params.systemPrompt ?? "",
    messages,
    tools: [],
    temperature,
    maxOutputTokens: maxTokens,
    stopSequences: stops.length > 0 ? stops : undefined,
    model: picked || choice.model === deps.provider.model ? undefined : choice.model,
    signal,
  })) {
    if (event.type === "text") text += event.delta;
    else if (event.type === "usage") spent.tokens += event.inputTokens + event.outputTokens;
    else if (event.type === "done") {
      finishReason = event.finishReason;
      stopSequence = event.stopSequence;
    }
  }
  return { role: "assistant", model: picked?.model ?? choice.model, content: { type: "text", text }, stopReason: stopReasonOf(finishReason, stopSequence) };
}

/** Gemini's, OpenAI's and Anthropic's finish reasons as MCP's; any other (SAFETY, content_filter) is passed on as the provider said it. */
function stopReasonOf(finishReason: string, stopSequence: string | undefined): string {
  if (stopSequence !== undefined) return "stopSequence";
  const reason = finishReason.toUpperCase();
  if (reason === "MAX_TOKENS" || reason === "LENGTH") return "maxTokens";
  if (reason === "STOP" || reason === "END_TURN" || reason === "" || reason === "FINISH_REASON_UNSPECIFIED") return "endTurn";
  return finishReason;
}

/** Sampling messages as the providers' messages: text joined, images and audio as media within one budget. */
export function toChatMessages(messages: SamplingParams["messages"]): ChatMessage[] {
  const budget = new MediaBudget();
  return messages.map((message): ChatMessage => {
    const blocks: Block[] = Array.isArray(message.content) ? message.content : [message.content];
    const lines: string[] = [];
    const media: MediaPart[] = [];
    for (const block of blocks) {
      if (block.type === "text") lines.push(block.text);
      else if (block.type === "image" || block.type === "audio") {
        const refused = budget.take(block.data.length);
        if (refused) lines.push(`[${block.type} (${block.mimeType}) left out: ${refused}]`);
        else media.push({ type: block.type, mimeType: block.mimeType, data: block.data });
      } else throw invalid(`sampling messages with ${block.type} content are not supported by this host (no tool use in sampling)`);
    }
    const text = lines.join("\n");
    if (message.role === "user") return media.length > 0 ? { role: "user", text, parts: media } : { role: "user", text };
    // Neither provider takes media in the model's own turn: they are named instead.
    const named = media.length > 0 ? `${text}\n[${mediaNames(media).join(", ")} of this earlier answer: not shown to the model]`.trim() : text;
    return { role: "assistant", text: named };
  });
}
