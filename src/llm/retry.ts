// Retries a model call that failed before producing anything: 429/5xx and
// broken connections (LlmError with `retryable`), waiting what the server asked
// (`retryAfterMs`) or backing off exponentially. Once an event was yielded the
// caller has shown or acted on it, so a later failure is never retried.
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
        const wait = error.retryAfterMs ?? Math.min(maxMs, initialMs * 2 ** (attempt - 1));
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

/** The default sleep: resolves after `ms`, rejects with the abort error as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
