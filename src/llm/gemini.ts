// Gemini through @google/genai: streams `generateContentStream` with native
// function calling. History maps onto Gemini contents (tool calls as model
// `functionCall` parts carrying their thoughtSignature back, tool results as user
// `functionResponse` parts, their media as inlineData right after); schemas go
// through sanitizeForGemini. Runs in workerd.
import { GoogleGenAI, type Content, type FunctionCall, type GenerateContentConfig, type GenerateContentResponse, type Part } from "@google/genai";
import { callIdGenerator } from "./call-ids";
import { abortError, clip, errorText, interrupted, isRetryableStatus, parseDuration, parseRetryAfter } from "./errors";
import { toolsBody } from "./gemini-tools";
import { canonicalMimeType, mediaGroups, userParts, type Converted } from "./media";
import {
  LlmError,
  type ChatMessage,
  type DocumentPart,
  type LlmEvent,
  type LlmProvider,
  type LlmRequest,
  type MediaPart,
  type ToolCallRequest,
} from "./provider";

export const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";

export interface GeminiProviderOptions {
  apiKey: string;
  model?: string;
  /** Replaces https://generativelanguage.googleapis.com (tests, proxies, AI Gateway). */
  baseUrl?: string;
  fetch?: typeof fetch;
}

/** Keys this provider keeps in `ToolCallRequest.providerData`. */
interface GeminiCallData {
  /** Must be sent back with the call, or Gemini 3 rejects the next request. */
  thoughtSignature?: string;
  /** The id Gemini gave the call, if it gave one (ours are generated and never sent). */
  functionCallId?: string;
}

export class GeminiProvider implements LlmProvider {
  readonly name = "gemini";
  readonly model: string;
  /**
   * One SDK client for every request of this provider: its key and base URL are fixed at
   * construction, and what varies per request (the body, the fetch that catches Retry-After)
   * goes in that request's `httpOptions`. A new client per request built some twenty SDK
   * objects on the way to the model (issue 37). The provider lives as long as its session
   * keeps its model (session-model.ts): a client is never shared between people.
   */
  private client?: GoogleGenAI;

  constructor(private readonly options: GeminiProviderOptions) {
    this.model = options.model ?? DEFAULT_GEMINI_MODEL;
  }

  private sdk(): GoogleGenAI {
    this.client ??= new GoogleGenAI({ apiKey: this.options.apiKey, httpOptions: this.options.baseUrl ? { baseUrl: this.options.baseUrl } : {} });
    return this.client;
  }

  async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
    // ApiError drops the response headers, so Retry-After is caught on the way through.
    let retryAfter: string | undefined;
    const baseFetch = this.options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    const contents = toContents(request.messages);
    // The SDK converts every part of every content, field by field, on every call: about
    // 1 ms at 1,000 entries, twice a turn (npm run bench:model-request). toContents builds
    // contents in the API's own shape, so the SDK is given the newest content to convert
    // and check, and the whole list goes in `extraBody`, which it sends as given. The system
    // text and the tools go there too, already in the API's shape: the SDK would convert each
    // declaration again, and it parses the body it built before merging `extraBody` into it,
    // so the smaller that body, the less it parses (issue 37, the first token's path).
    const extraBody: Record<string, unknown> = { contents };
    if (request.system) extraBody.systemInstruction = { role: "user", parts: [{ text: request.system }] };
    if (request.tools.length > 0) extraBody.tools = toolsBody(request.tools);
    const config: GenerateContentConfig = {
      abortSignal: request.signal,
      httpOptions: {
        extraBody,
        fetch: async (input, init) => {
          const response = await baseFetch(input, init);
          if (!response.ok) retryAfter = response.headers.get("retry-after") ?? undefined;
          return response;
        },
      },
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
      ...(request.stopSequences?.length ? { stopSequences: request.stopSequences } : {}),
    };
    const fail = (error: unknown, started: boolean): Error => (request.signal?.aborted ? abortError(request.signal) : toLlmError(error, retryAfter, started));

    let chunks: AsyncGenerator<GenerateContentResponse>;
    try {
      chunks = await this.sdk().models.generateContentStream({ model: request.model ?? this.model, contents: contents.slice(-1), config });
    } catch (error) {
      throw fail(error, false);
    }

    const nextId = callIdGenerator(request.messages);
    const calls: ToolCallRequest[] = [];
    let finishReason: string | undefined;
    let blockReason: string | undefined;
    let usage: GenerateContentResponse["usageMetadata"];
    try {
      for await (const chunk of chunks) {
        const candidate = chunk.candidates?.[0];
        for (const part of candidate?.content?.parts ?? []) {
          if (part.thought) continue; // Thought summaries are not answer text.
          if (part.functionCall) calls.push(toCall(part.functionCall, part.thoughtSignature, nextId));
          else if (part.text) yield { type: "text", delta: part.text };
        }
        finishReason = candidate?.finishReason ?? finishReason;
        blockReason = chunk.promptFeedback?.blockReason ?? blockReason;
        usage = chunk.usageMetadata ?? usage;
      }
    } catch (error) {
      throw fail(error, true);
    }
    // Calls are released only once the stream finished: a call from a broken stream must never run.
    for (const call of calls) yield { type: "tool_call", call };
    if (usage) {
      yield {
        type: "usage",
        inputTokens: usage.promptTokenCount ?? 0,
        // Thinking tokens are billed as output.
        outputTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
      };
    }
    yield { type: "done", finishReason: finishReason ?? blockReason ?? "FINISH_REASON_UNSPECIFIED" };
  }
}

function toCall(functionCall: FunctionCall, thoughtSignature: string | undefined, nextId: () => string): ToolCallRequest {
  const data: GeminiCallData = {};
  if (thoughtSignature) data.thoughtSignature = thoughtSignature;
  if (functionCall.id) data.functionCallId = functionCall.id;
  return {
    id: functionCall.id ?? nextId(),
    name: functionCall.name ?? "",
    arguments: functionCall.args ?? {},
    ...(Object.keys(data).length > 0 ? { providerData: { ...data } } : {}),
  };
}

function callData(call: ToolCallRequest | undefined): GeminiCallData {
  const data = call?.providerData ?? {};
  return {
    thoughtSignature: typeof data.thoughtSignature === "string" ? data.thoughtSignature : undefined,
    functionCallId: typeof data.functionCallId === "string" ? data.functionCallId : undefined,
  };
}

/** A message's contents as last built, with the ids of the calls its results answered (a tool message's depend on them). */
type Built = { contents: Content[]; callIds?: (string | undefined)[] };
// The model's view keeps each message object between model calls (session/model-view.ts):
// its contents are built once, not at every call of every turn.
const built = new WeakMap<ChatMessage, Built>();

/** Our history as Gemini contents. Exported for tests of the mapping. */
export function toContents(messages: ChatMessage[]): Content[] {
  const calls = new Map<string, ToolCallRequest>();
  const contents: Content[] = [];
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) calls.set(call.id, call);
    const callIds = message.role === "tool" ? message.results.map((r) => callData(calls.get(r.id)).functionCallId) : undefined;
    let kept = built.get(message);
    if (!kept || (callIds && !sameIds(kept.callIds, callIds))) {
      kept = { contents: messageContents(message, callIds ?? []), ...(callIds ? { callIds } : {}) };
      built.set(message, kept);
    }
    for (const content of kept.contents) contents.push(content);
  }
  return contents;
}

const sameIds = (a: (string | undefined)[] | undefined, b: (string | undefined)[]): boolean =>
  a !== undefined && a.length === b.length && a.every((id, i) => id === b[i]);

/** One message as Gemini contents; `callIds`: Gemini's id of the call each tool result answers, if it gave one. */
function messageContents(message: ChatMessage, callIds: (string | undefined)[]): Content[] {
  if (message.role === "user") {
    // Attached resources and prompt contents follow the text in the same user content.
    const parts = userParts<Part>(message.text, message.parts, (text) => ({ text }), toInlineData);
    return [{ role: "user", parts: parts.length > 0 ? parts : [{ text: "" }] }];
  }
  if (message.role === "assistant") {
    const parts: Part[] = message.text ? [{ text: message.text }] : [];
    for (const call of message.toolCalls ?? []) {
      const { thoughtSignature, functionCallId } = callData(call);
      parts.push({
        functionCall: { name: call.name, args: call.arguments, ...(functionCallId ? { id: functionCallId } : {}) },
        ...(thoughtSignature ? { thoughtSignature } : {}),
      });
    }
    // Gemini rejects contents without parts; an empty assistant turn carries nothing anyway.
    return parts.length > 0 ? [{ role: "model", parts }] : [];
  }
  if (message.results.length === 0) return [];
  const contents: Content[] = [
    {
      role: "user",
      parts: message.results.map((result, i) => {
        const functionCallId = callIds[i];
        return {
          functionResponse: {
            name: result.name,
            ...(functionCallId ? { id: functionCallId } : {}),
            // `response` must be an object (a protobuf Struct).
            response: result.error !== undefined ? { error: result.error } : { result: result.result ?? null },
          },
        };
      }),
    },
  ];
  // Media go in a user content of their own right after the responses, as inlineData.
  // Not in `functionResponse.parts`: @google/genai 2.32 carries those, but Gemini
  // documents multimodal function responses for Gemini 3 models only (and for images
  // and documents, not audio), while the default here is gemini-2.5-flash. Inline data
  // in a user content works with every Gemini model, audio included.
  const media = mediaGroups(
    message.results.map((r, i) => ({ ...r, id: callIds[i] ?? r.id })),
    toInlineData,
  ).flatMap((group): Part[] => [{ text: group.text }, ...group.parts]);
  if (media.length > 0) contents.push({ role: "user", parts: media });
  return contents;
}

// What Gemini takes as inline data (ai.google.dev, image and audio understanding), with
// the other names servers use for the same types mapped onto these (canonicalMimeType).
const GEMINI_MEDIA = new Set([
  "image/png",
  "image/jpeg",
  "image/webp",
  "image/heic",
  "image/heif",
  "audio/wav",
  "audio/mp3",
  "audio/aiff",
  "audio/aac",
  "audio/ogg",
  "audio/flac",
  // Documents (ai.google.dev, document understanding): a PDF a user attached.
  "application/pdf",
]);

/** A type Gemini does not take would fail the whole request: it is named in the text instead. */
function toInlineData(media: MediaPart | DocumentPart): Converted<Part> {
  const mimeType = canonicalMimeType(media.mimeType);
  if (GEMINI_MEDIA.has(mimeType)) return { part: { inlineData: { mimeType, data: media.data } } };
  return { refused: GEMINI_REFUSALS[media.type] };
}

const GEMINI_REFUSALS = {
  image: "Gemini takes PNG, JPEG, WebP, HEIC or HEIF images",
  audio: "Gemini takes WAV, MP3, AIFF, AAC, OGG or FLAC audio",
  document: "Gemini takes PDF documents",
};

interface GoogleErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { "@type"?: string; retryDelay?: string }[] };
}

/** SDK failures as LlmError: ApiError carries the status and the JSON body as its message. */
function toLlmError(error: unknown, retryAfterHeader: string | undefined, started: boolean): LlmError {
  if (error instanceof LlmError) return error;
  const status = error instanceof Error && "status" in error && typeof error.status === "number" ? error.status : undefined;
  if (status === undefined) {
    // No HTTP status: the connection failed or the stream broke; transient by nature.
    return started ? interrupted("Gemini", error) : new LlmError(`Gemini API unreachable: ${errorText(error)}`, undefined, true);
  }
  const body = parseBody(errorText(error));
  const retryInfo = body?.error?.details?.find((d) => d["@type"]?.endsWith("google.rpc.RetryInfo"));
  const retryAfterMs = parseRetryAfter(retryAfterHeader) ?? parseDuration(retryInfo?.retryDelay);
  const reason = body?.error?.status ? ` ${body.error.status}` : "";
  const detail = clip(body?.error?.message ?? errorText(error));
  return new LlmError(`Gemini API error ${status}${reason}: ${detail}`, status, isRetryableStatus(status), retryAfterMs);
}

function parseBody(text: string): GoogleErrorBody | undefined {
  // Mid-stream errors are prefixed "got status: ...": the JSON starts at the first brace.
  const start = text.indexOf("{");
  if (start < 0) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start));
    return typeof value === "object" && value !== null ? (value as GoogleErrorBody) : undefined;
  } catch {
    return undefined;
  }
}
