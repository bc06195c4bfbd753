// Retries a model call that failed before producing anything: 429/5xx and
// broken connections (LlmError with `retryable`), waiting what the server asked
// (`retryAfterMs`) or backing off exponentially. Once an event was yielded the
// caller has shown or acted on it, so a later failure is never retried.
import { backoffDelay, sleep as sharedSleep } from "../shared/backoff";
import { abortError } from "./errors";
import { LlmError, type LlmEvent, type LlmProvider, type LlmRequest } from "./provider";

export interface RetryOptions {
  /** Attempts in all, the first included (default 3). */
  tries?: number;
  /** First backoff wait; doubles per attempt (default 1000 ms). */
  initialMs?: number;
  /** Longest wait; a server asking for more is not retried, its error is passed on with retryAfterMs (default 30000 ms). */
  maxMs?: number;
  /** Injectable for tests. Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function withRetries(provider: LlmProvider, options: RetryOptions = {}): LlmProvider {
  const tries = Math.max(1, options.tries ?? 3);
  const initialMs = options.initialMs ?? 1_000;
  const maxMs = options.maxMs ?? 30_000;
  const sleep = options.sleep ?? abortableSleep;

  async function* stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
    for (let attempt = 1; ; attempt++) {
      let started = false;
      try {
        for await (const event of provider.stream(request)) {
          started = true;
          yield event;
        }
        return;
      } catch (error) {
        if (started || !(error instanceof LlmError) || !error.retryable || request.signal?.aborted) throw error;
        const wait = error.retryAfterMs ?? backoffDelay(attempt - 1, { initialMs, maxMs });
        if (wait > maxMs) {
          throw new LlmError(`${error.message} (not retried: the server asked to wait ${Math.ceil(wait / 1000)} s)`, error.status, true, wait);
        }
        if (attempt >= tries) {
          throw new LlmError(`${error.message} (gave up after ${attempt} ${attempt === 1 ? "attempt" : "attempts"})`, error.status, true, error.retryAfterMs);
        }
        await sleep(wait, request.signal);
      }
    }
  }

  return { name: provider.name, model: provider.model, stream };
}

/** The default sleep: the shared one, rejecting with a model call's own abort error when `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sharedSleep(ms, signal).catch(() => Promise.reject(abortError(signal)));
}
