// Anthropic's Messages API through its official SDK (@anthropic-ai/sdk), streamed, with
// native tools. History maps onto Anthropic messages: tool calls as `tool_use` blocks
// (ids Anthropic accepts, made from the call's own id), results as `tool_result` blocks
// in the next user message, with their images inside the result (Anthropic takes images
// in a tool result; audio it does not take is named instead). Consecutive messages of one
// role are joined, as the API wants turns to alternate. The SDK's own retries are off:
// retry.ts retries (once nothing was shown yet). Runs in workerd.
import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { callIdGenerator, modelCallId } from "./call-ids";
import { abortError, clip, errorText, interrupted, isRetryableStatus, parseRetryAfter } from "./errors";
import { canonicalMimeType, mediaNames, userParts, type Converted } from "./media";
import { callFromText } from "./tool-arguments";
import { LlmError, type ChatMessage, type DocumentPart, type LlmEvent, type LlmProvider, type LlmRequest, type MediaPart } from "./provider";

/** `max_tokens` is required by the API: this when the request and the session set none (every Claude model takes it). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
const ANTHROPIC_VERSION_BASE = "https://api.anthropic.com";

export interface AnthropicProviderOptions {
  apiKey: string;
  model: string;
  /** Replaces https://api.anthropic.com (tests, proxies, AI Gateway). */
  baseUrl?: string;
  fetch?: typeof fetch;
}

type Block = { kind: "text"; text: string } | { kind: "tool"; id: string; name: string; json: string };

export class AnthropicProvider implements LlmProvider {
  readonly name = "anthropic";
  readonly model: string;

  constructor(private readonly options: AnthropicProviderOptions) {
    this.model = options.model;
  }

  async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
    const { signal } = request;
    const baseFetch = this.options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
    const client = new Anthropic({
      apiKey: this.options.apiKey,
      baseURL: this.options.baseUrl ?? ANTHROPIC_VERSION_BASE,
      fetch: (input, init) => baseFetch(input, init),
      maxRetries: 0,
      logLevel: "off",
      openTelemetry: false,
    });
    const body: MessageCreateParamsStreaming = {
      model: request.model ?? this.model,
      max_tokens: request.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: toAnthropicMessages(request.messages),
      stream: true,
      ...(request.system ? { system: request.system } : {}),
      ...(request.tools.length > 0 ? { tools: request.tools.map(toTool) } : {}),
      // Anthropic takes 0 to 1; the other providers 0 to 2.
      ...(request.temperature !== undefined ? { temperature: Math.min(1, request.temperature) } : {}),
      ...(request.stopSequences?.length ? { stop_sequences: request.stopSequences } : {}),
    };
    const fail = (error: unknown, started: boolean): Error =>
      signal?.aborted || error instanceof APIUserAbortError ? abortError(signal) : toLlmError(error, started);

    let events: AsyncIterable<RawMessageStreamEvent>;
    try {
      events = await client.messages.create(body, { signal });
    } catch (error) {
      throw fail(error, false);
    }

    const blocks = new Map<number, Block>();
    let inputTokens = 0;
    let outputTokens = 0;
    let stopReason: string | undefined;
    let stopSequence: string | undefined;
    let stopped = false;
    try {
      for await (const event of events) {
        switch (event.type) {
          case "message_start": {
            const usage = event.message.usage;
            inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
            outputTokens = usage.output_tokens;
            break;
          }
          case "content_block_start": {
            const block = event.content_block;
            if (block.type === "text") {
              blocks.set(event.index, { kind: "text", text: block.text });
              if (block.text) yield { type: "text", delta: block.text };
            } else if (block.type === "tool_use") blocks.set(event.index, { kind: "tool", id: block.id, name: block.name, json: "" });
            // Thinking and server-tool blocks are not answer text.
            break;
          }
          case "content_block_delta": {
            const block = blocks.get(event.index);
            if (event.delta.type === "text_delta" && block?.kind === "text") yield { type: "text", delta: event.delta.text };
            else if (event.delta.type === "input_json_delta" && block?.kind === "tool") block.json += event.delta.partial_json;
            break;
          }
          case "message_delta":
            stopReason = event.delta.stop_reason ?? stopReason;
            stopSequence = event.delta.stop_sequence ?? stopSequence;
            outputTokens = event.usage.output_tokens ?? outputTokens;
            break;
          case "message_stop":
            stopped = true;
            break;
        }
      }
    } catch (error) {
      throw fail(error, true);
    }
    // The SDK ends its stream quietly when the request is aborted.
    if (signal?.aborted) throw abortError(signal);
    // Calls are released only once the message ended: a call from a broken stream must never run.
    if (!stopped) throw interrupted("Anthropic", new Error("the stream ended before the message did"));
    const nextId = callIdGenerator(request.messages);
    for (const block of [...blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b)) {
      if (block.kind === "tool") yield { type: "tool_call", call: callFromText(block.id || nextId(), block.name, block.json) };
    }
    yield { type: "usage", inputTokens, outputTokens };
    yield { type: "done", finishReason: stopReason ?? "end_turn", ...(stopSequence ? { stopSequence } : {}) };
  }
}

function toTool(tool: LlmRequest["tools"][number]): Tool {
  const { $schema: _schema, ...schema } = tool.parameters;
  return { name: tool.name, description: tool.description, input_schema: { ...schema, type: "object" } };
}

/** A call id as Anthropic takes it (`^[a-zA-Z0-9_-]+$`): another provider's may hold dots or be absent. */
const anthropicId = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, "_") || "call";

/** Our history as Anthropic messages. Exported for tests of the mapping. */
export function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const out: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  const ids = new Map<string, string>();
  const push = (role: "user" | "assistant", content: ContentBlockParam[]) => {
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const message of messages) {
    if (message.role === "user") {
      const parts = userParts<TextBlockParam | ImageBlockParam | DocumentBlockParam>(message.text, message.parts, textBlock, toUserBlock);
      // The API refuses empty text blocks; an empty message still takes its turn.
      push("user", parts.length > 0 ? parts : [textBlock("(empty message)")]);
    } else if (message.role === "assistant") {
      const content: ContentBlockParam[] = message.text ? [textBlock(message.text)] : [];
      for (const call of message.toolCalls ?? []) {
        const id = anthropicId(modelCallId(call));
        ids.set(call.id, id);
        content.push({ type: "tool_use", id, name: call.name, input: call.arguments });
      }
      push("assistant", content);
    } else {
      push(
        "user",
        message.results.map((result) => {
          const text =
            result.error !== undefined
              ? JSON.stringify({ error: result.error })
              : typeof result.result === "string"
                ? result.result
                : JSON.stringify(result.result ?? null);
          const media = resultMedia(result.media ?? []);
          return {
            type: "tool_result" as const,
            tool_use_id: ids.get(result.id) ?? anthropicId(result.id),
            content: [textBlock(text || "(no output)"), ...media.parts, ...(media.note ? [textBlock(media.note)] : [])],
            ...(result.error !== undefined ? { is_error: true } : {}),
          };
        }),
      );
    }
  }
  return out;
}

const textBlock = (text: string): TextBlockParam => ({ type: "text", text });

/** A result's media inside its tool_result block, and a note naming what could not be sent. */
function resultMedia(media: MediaPart[]): { parts: ImageBlockParam[]; note?: string } {
  const parts: ImageBlockParam[] = [];
  const refused: string[] = [];
  mediaNames(media).forEach((name, i) => {
    const converted = toImage(media[i] as MediaPart);
    if ("part" in converted) parts.push(converted.part);
    else refused.push(`${name}: ${converted.refused}`);
  });
  return { parts, note: refused.length > 0 ? `Not sent: ${refused.join("; ")}.` : undefined };
}

// Anthropic takes JPEG, PNG, GIF and WebP images (docs: vision), and no audio.
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"] as const);
type ImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

/** A user message's media: images as image blocks, a PDF as a document block (docs: PDF support). */
function toUserBlock(media: MediaPart | DocumentPart): Converted<ImageBlockParam | DocumentBlockParam> {
  if (media.type !== "document") return toImage(media);
  if (canonicalMimeType(media.mimeType) !== "application/pdf") return { refused: "Anthropic takes PDF documents" };
  return { part: { type: "document", source: { type: "base64", media_type: "application/pdf", data: media.data }, title: media.name } };
}

function toImage(media: MediaPart): Converted<ImageBlockParam> {
  if (media.type === "audio") return { refused: "Anthropic models take no audio" };
  const mimeType = canonicalMimeType(media.mimeType);
  if (!IMAGE_TYPES.has(mimeType as ImageType)) return { refused: "Anthropic takes PNG, JPEG, GIF or WebP images" };
  return { part: { type: "image", source: { type: "base64", media_type: mimeType as ImageType, data: media.data } } };
}

/** SDK failures as LlmError: APIError carries the status, headers and Anthropic's error body. */
function toLlmError(error: unknown, started: boolean): LlmError {
  if (error instanceof LlmError) return error;
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const detail = clip(error.apiMessage ?? errorText(error));
    const kind = error.type ? ` ${error.type}` : "";
    const retryAfterMs = parseRetryAfter(error.headers?.get("retry-after"));
    // 529 "overloaded" is Anthropic's own transient status.
    return new LlmError(`Anthropic API error ${status}${kind}: ${detail}`, status, isRetryableStatus(status), retryAfterMs);
  }
  if (error instanceof APIError && !(error instanceof APIConnectionError)) {
    // An `error` event mid-stream (overloaded_error…): no status, worth retrying before anything was shown.
    return new LlmError(`Anthropic stream error: ${clip(error.apiMessage ?? errorText(error))}`, undefined, true);
  }
  return started ? interrupted("Anthropic", error) : new LlmError(`Anthropic API unreachable: ${errorText(error)}`, undefined, true);
}
