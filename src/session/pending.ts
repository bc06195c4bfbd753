// Questions the session has put to the user (tool approvals, sampling approvals,
// elicitations) and are waiting for an answer from any of its sockets.

export class PendingAnswers<T> {
  private readonly waiting = new Map<string, { resolve: (answer: T) => void }>();

  /** Waits for `answer(id, …)`; resolves with `fallback` when `signal` aborts or after `timeoutMs`. */
  ask(id: string, fallback: T, signal?: AbortSignal, timeoutMs = 10 * 60_000): Promise<T> {
    return new Promise<T>((resolve) => {
      const done = (answer: T) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiting.delete(id);
        resolve(answer);
      };
      const onAbort = () => done(fallback);
      const timer = setTimeout(() => done(fallback), timeoutMs);
      if (signal?.aborted) return done(fallback);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(id, { resolve: done });
    });
  }

  /** False when nobody is waiting for `id` (already answered, or never asked). */
  answer(id: string, answer: T): boolean {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    entry.resolve(answer);
    return true;
  }

  ids(): string[] {
    return [...this.waiting.keys()];
  }
}
