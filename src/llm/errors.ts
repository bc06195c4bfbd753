// Helpers shared by the providers for turning HTTP failures into LlmError:
// which statuses are worth retrying, how long the server asked us to wait, and
// the error a cancelled request should surface as.
import { EXCERPT_CHARS, upstreamExcerpt } from "../shared/upstream-text";
import { LlmError } from "./provider";

/** 408, 429 and 5xx are transient; every other 4xx means the request itself is wrong. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A protobuf Duration in JSON form ("2s", "0.5s", "1.250s"), in ms — Gemini's `RetryInfo.retryDelay`. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/** The error a cancelled stream throws: the signal's reason when it is an Error, else a DOMException named AbortError. */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException("The model request was cancelled", "AbortError");
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A stream that broke after it started (connection reset, truncated body): worth retrying if nothing was shown yet. */
export function interrupted(provider: string, error: unknown): LlmError {
  return new LlmError(`${provider} stream was interrupted: ${errorText(error)}`, undefined, true);
}

/**
 * Keeps error bodies quoted in messages short, one line, and without an HTML page's text
 * (src/shared/upstream-text.ts); the registry takes the key out of the whole message.
 */
export function clip(text: string, max = EXCERPT_CHARS): string {
  return upstreamExcerpt(text, [], max);
}
