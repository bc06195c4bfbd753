// Exponential backoff shared by safe-request retries and reconnects.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** Total attempts including the first one. */
  tries: number;
}

export const defaultBackoff: BackoffPolicy = { initialMs: 1_000, maxMs: 30_000, tries: 3 };

export function backoffDelay(attempt: number, policy: Pick<BackoffPolicy, "initialMs" | "maxMs">): number {
  return Math.min(policy.maxMs, policy.initialMs * 2 ** attempt);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Runs `fn` until it succeeds, `shouldRetry` says no, or the tries run out. */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  policy: BackoffPolicy,
  shouldRetry: (error: unknown) => boolean,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt + 1 >= policy.tries || !shouldRetry(error) || signal?.aborted) throw error;
      await sleep(backoffDelay(attempt, policy), signal);
    }
  }
}
