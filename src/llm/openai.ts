// Any OpenAI-compatible `/chat/completions` endpoint (OpenAI, OpenRouter, Ollama,
// vLLM, llama.cpp) with `stream: true` and native tools, over fetch. The SSE is
// parsed by eventsource-parser; streamed `tool_calls` deltas are assembled by
// index and released only when the stream ended cleanly. Tool-result media follow
// the tool messages in a user message (image_url data: URLs, input_audio).
import { EventSourceParserStream } from "eventsource-parser/stream";
import { callIdGenerator, modelCallId } from "./call-ids";
import { abortError, clip, errorText, interrupted, isRetryableStatus, parseRetryAfter } from "./errors";
import { canonicalMimeType, mediaGroups, userParts, type Converted } from "./media";
import { callFromText } from "./tool-arguments";
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

export interface OpenAiProviderOptions {
  /** Up to and including the version segment, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseUrl: string;
  model: string;
  /** Optional: local servers (Ollama, llama.cpp) need none. */
  apiKey?: string;
  fetch?: typeof fetch;
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}
interface StreamChunk {
  /** `stop_reason`: vLLM's extra, the stop string matched (or the stop token id). */
  choices?: { delta?: { content?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null; stop_reason?: string | number | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string; code?: number | string };
}
interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

export class OpenAiProvider implements LlmProvider {
  readonly name = "openai";
  readonly model: string;

  constructor(private readonly options: OpenAiProviderOptions) {
    this.model = options.model;
  }

  async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
    const { signal } = request;
    const url = `${this.options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
    const body = {
      model: request.model ?? this.model,
      stream: true,
      stream_options: { include_usage: true },
      messages: toOpenAiMessages(request.system, request.messages),
      ...(request.tools.length > 0
        ? { tools: request.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } })) }
        : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxOutputTokens !== undefined ? { [maxTokensField(this.options.baseUrl)]: request.maxOutputTokens } : {}),
      ...(request.stopSequences?.length ? { stop: request.stopSequences } : {}),
    };
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const doFetch = this.options.fetch ?? fetch;

    let response: Response;
    try {
      response = await doFetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
    } catch (error) {
      throw signal?.aborted ? abortError(signal) : new LlmError(`OpenAI-compatible endpoint unreachable: ${errorText(error)}`, undefined, true);
    }
    if (!response.ok) throw await httpError(response);
    if (!response.body) throw new LlmError("OpenAI-compatible endpoint answered without a body", response.status, true);

    const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    const reader = events.getReader();
    const partial: PartialCall[] = [];
    let finishReason: string | undefined;
    let stopSequence: string | undefined;
    let usage: StreamChunk["usage"];
    let sawDone = false;
    try {
      for (;;) {
        let next: ReadableStreamReadResult<{ data: string }>;
        try {
          next = await reader.read();
        } catch (error) {
          throw signal?.aborted ? abortError(signal) : interrupted("OpenAI-compatible", error);
        }
        if (next.done) break;
        if (next.value.data === "[DONE]") {
          sawDone = true;
          break;
        }
        const chunk = parseChunk(next.value.data);
        if (chunk.error) {
          const code = typeof chunk.error.code === "number" ? chunk.error.code : undefined;
          throw new LlmError(`OpenAI-compatible stream error: ${chunk.error.message ?? "unknown"}`, code, code !== undefined && isRetryableStatus(code));
        }
        usage = chunk.usage ?? usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        if (choice.delta?.content) yield { type: "text", delta: choice.delta.content };
        for (const delta of choice.delta?.tool_calls ?? []) accumulate(partial, delta);
        finishReason = choice.finish_reason ?? finishReason;
        if (typeof choice.stop_reason === "string") stopSequence = choice.stop_reason;
      }
    } finally {
      reader.releaseLock();
      // Stops the download when the consumer quits early or the stream failed.
      await events.cancel().catch(() => undefined);
    }
    // A body that ends with neither a finish reason nor [DONE] was cut: its calls may be half-written.
    if (!sawDone && finishReason === undefined) throw interrupted("OpenAI-compatible", new Error("the stream ended before the model finished"));

    const nextId = callIdGenerator(request.messages);
    // Some servers number calls per response (call_0 every time): an id already in the conversation is replaced.
    const taken = new Set(request.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map(modelCallId) : [])));
    for (const call of partial) {
      if (!call) continue;
      if (taken.has(call.id)) call.id = "";
      const done = complete(call, nextId);
      taken.add(done.id);
      yield { type: "tool_call", call: done };
    }
    if (usage) yield { type: "usage", inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
    yield { type: "done", finishReason: finishReason ?? "stop", ...(stopSequence !== undefined ? { stopSequence } : {}) };
  }
}

/**
 * OpenAI itself wants `max_completion_tokens` (its reasoning models refuse `max_tokens`);
 * the other OpenAI-compatible servers (Ollama, llama.cpp, older vLLM, OpenRouter) read `max_tokens`.
 */
export function maxTokensField(baseUrl: string): "max_tokens" | "max_completion_tokens" {
  let host = "";
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    // Checked as a URL when the provider was chosen; anything else is not OpenAI's.
  }
  return host === "api.openai.com" ? "max_completion_tokens" : "max_tokens";
}

function parseChunk(data: string): StreamChunk {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value === "object" && value !== null) return value as StreamChunk;
  } catch {
    // Falls through to the error below.
  }
  throw new LlmError(`OpenAI-compatible stream sent an unreadable chunk: ${clip(data, 120)}`, undefined, true);
}

function accumulate(partial: PartialCall[], delta: ToolCallDelta): void {
  const index = typeof delta.index === "number" ? delta.index : partial.length === 0 ? 0 : partial.length - 1;
  const call = (partial[index] ??= { id: "", name: "", arguments: "" });
  if (delta.id) call.id = delta.id;
  // Most servers send the name once; some repeat it in every delta, a few split it.
  const name = delta.function?.name;
  if (name && name !== call.name) call.name += name;
  call.arguments += delta.function?.arguments ?? "";
}

/** A call whose id the server did not give gets one of ours. */
function complete(call: PartialCall, nextId: () => string): ToolCallRequest {
  return callFromText(call.id || nextId(), call.name, call.arguments);
}

type OpenAiContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } }
  | { type: "file"; file: { filename: string; file_data: string } };

type OpenAiMessage =
  | { role: "system" | "user"; content: string }
  | { role: "user"; content: OpenAiContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** Our history as chat-completions messages. Exported for tests of the mapping. */
export function toOpenAiMessages(system: string, messages: ChatMessage[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = system ? [{ role: "system", content: system }] : [];
  // Our call ids → the ids the model gave them, for the tool messages that answer them.
  const modelIds = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "user") {
      // A plain string when there is nothing attached (every endpoint takes that); content parts otherwise.
      if (!message.parts?.length) out.push({ role: "user", content: message.text });
      else out.push({ role: "user", content: userParts<OpenAiContentPart>(message.text, message.parts, (text) => ({ type: "text", text }), toContentPart) });
    } else if (message.role === "assistant") {
      const calls = message.toolCalls ?? [];
      for (const call of calls) modelIds.set(call.id, modelCallId(call));
      out.push({
        role: "assistant",
        content: message.text || null,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call) => ({
                id: modelCallId(call),
                type: "function" as const,
                // What the model wrote, even if it was broken: it reads its own mistake next to our error.
                function: {
                  name: call.name,
                  arguments: typeof call.providerData?.rawArguments === "string" ? call.providerData.rawArguments : JSON.stringify(call.arguments),
                },
              })),
            }
          : {}),
      });
    } else {
      for (const result of message.results) {
        const content =
          result.error !== undefined
            ? JSON.stringify({ error: result.error })
            : typeof result.result === "string"
              ? result.result
              : JSON.stringify(result.result ?? null);
        out.push({ role: "tool", tool_call_id: modelIds.get(result.id) ?? result.id, content });
      }
      // Tool messages carry text only, and nothing may come between an assistant's calls and
      // their tool messages: the media of all results follow in one user message.
      const media = mediaGroups(
        message.results.map((r) => ({ ...r, id: modelIds.get(r.id) ?? r.id })),
        toContentPart,
      ).flatMap((group): OpenAiContentPart[] => [{ type: "text", text: group.text }, ...group.parts]);
      if (media.length > 0) out.push({ role: "user", content: media });
    }
  }
  return out;
}

// Chat completions take PNG, JPEG, WebP and GIF images as data: URLs, and WAV or MP3
// audio as input_audio; an endpoint that reads neither (a text-only local model)
// answers with an error the user sees, as it would for any image.
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);
const AUDIO_FORMATS: Record<string, "wav" | "mp3"> = { "audio/wav": "wav", "audio/mp3": "mp3" };

function toContentPart(media: MediaPart | DocumentPart): Converted<OpenAiContentPart> {
  // A PDF as a file content part (chat completions' `file`, base64 in a data: URL); an endpoint without it answers with an error the user sees.
  if (media.type === "document") {
    if (canonicalMimeType(media.mimeType) !== "application/pdf") return { refused: "the endpoint takes PDF files" };
    return { part: { type: "file", file: { filename: media.name, file_data: `data:application/pdf;base64,${media.data}` } } };
  }
  const mimeType = canonicalMimeType(media.mimeType);
  if (media.type === "image") {
    if (IMAGE_TYPES.has(mimeType)) return { part: { type: "image_url", image_url: { url: `data:${mimeType};base64,${media.data}` } } };
    return { refused: "the endpoint takes PNG, JPEG, WebP or GIF images" };
  }
  const format = AUDIO_FORMATS[mimeType];
  if (format) return { part: { type: "input_audio", input_audio: { data: media.data, format } } };
  return { refused: "the endpoint takes WAV or MP3 audio" };
}

async function httpError(response: Response): Promise<LlmError> {
  const text = await response.text().catch(() => "");
  let detail = clip(text) || response.statusText;
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const message = (typeof body.error === "string" ? body.error : body.error?.message) ?? body.message;
    if (typeof message === "string") detail = clip(message);
  } catch {
    // Not JSON (an HTML error page, plain text): the clipped text is the detail.
  }
  const retryAfterMs = parseRetryAfter(
    response.headers.get("retry-after-ms") ? String(Number(response.headers.get("retry-after-ms")) / 1000) : response.headers.get("retry-after"),
  );
  return new LlmError(`OpenAI-compatible API error ${response.status}: ${detail}`, response.status, isRetryableStatus(response.status), retryAfterMs);
}
