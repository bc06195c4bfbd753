// The interface every model provider implements, and the messages the
// orchestrator hands them. Providers know nothing about WebSockets or MCP: they
// turn a conversation plus tool declarations into a stream of events.
import type { ErrorCode } from "../shared/error-codes";
import { EdgehostError, type PublicError } from "../shared/errors";

/** A tool as the model sees it: a function name valid for Gemini and OpenAI, and a JSON Schema. */
export interface ToolDeclaration {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCallRequest {
  /** Stable id of this call within the conversation (the provider's, or generated). */
  id: string;
  /** Function name as the model wrote it (may be unknown: the orchestrator checks). */
  name: string;
  arguments: Record<string, unknown>;
  /** Opaque data a provider must get back with this call in later requests (e.g. Gemini's thoughtSignature). */
  providerData?: Record<string, unknown>;
}

/** An image or audio clip a tool returned (base64, as MCP carries it), for the model to see or hear. */
export interface MediaPart {
  type: "image" | "audio";
  mimeType: string;
  data: string;
}

export interface ToolCallResult {
  id: string;
  name: string;
  /** What the tool returned (already reduced to JSON the model can read), or the error text. */
  result?: unknown;
  error?: string;
  /**
   * Media of this result, within the turn's budget. Each provider passes them on in its
   * own form (src/llm/media.ts); the text above names each one in order ("image 1").
   * Only in the running turn: history keeps a note instead.
   */
  media?: MediaPart[];
}

/**
 * What a user message carries after its text: the contents of resources attached to it
 * or of a prompt's messages (src/orchestrator/resource-parts.ts). Text parts are text;
 * media are passed on in each provider's own form, like a tool result's.
 */
export type UserPart = { type: "text"; text: string } | MediaPart | DocumentPart;

/** A document a user attached from their computer (a PDF), base64, for a model that reads documents natively. */
export interface DocumentPart {
  type: "document";
  mimeType: string;
  data: string;
  name: string;
}

export type ChatMessage =
  /** `parts`: what follows the text: attached resources, a prompt's contents, a sampling request's images and audio. */
  | { role: "user"; text: string; parts?: UserPart[] }
  | { role: "assistant"; text: string; toolCalls?: ToolCallRequest[] }
  | { role: "tool"; results: ToolCallResult[] };

export interface LlmRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolDeclaration[];
  temperature?: number;
  /** Upper bound on the answer's tokens (Gemini maxOutputTokens, OpenAI max_tokens / max_completion_tokens). */
  maxOutputTokens?: number;
  /** The answer ends before any of these strings. */
  stopSequences?: string[];
  /** Another model of the same provider than the configured one (sampling's model preferences). */
  model?: string;
  signal?: AbortSignal;
}

export type LlmEvent =
  | { type: "text"; delta: string }
  | { type: "tool_call"; call: ToolCallRequest }
  | { type: "usage"; inputTokens: number; outputTokens: number }
  /** `stopSequence`: the stop string the model stopped at, when the provider says which (vLLM's `stop_reason`). */
  | { type: "done"; finishReason: string; stopSequence?: string };

export interface LlmProvider {
  readonly name: "gemini" | "openai" | "anthropic" | "prompted";
  readonly model: string;
  stream(request: LlmRequest): AsyncIterable<LlmEvent>;
}

/** A model call that failed. `retryable` covers 429 and 5xx; `retryAfterMs` comes from the server when it said. */
export class LlmError extends EdgehostError {
  readonly code: ErrorCode = "llm";
  constructor(
    message: string,
    readonly status?: number,
    readonly retryable = false,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, retryAfterMs: this.retryAfterMs };
  }
}
