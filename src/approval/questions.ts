// The one registry of questions a session has put to its user and is waiting on:
// tool approvals, sampling approvals and elicitations. Each is asked on every
// open socket, asked again on a socket that connects later, and settled by the
// first answer, a cancel (the turn or request ended) or a timeout.

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

interface Open<Q, A> {
  question: Q;
  settle: (answer: A) => void;
}

export class OpenQuestions<Q, A> {
  private readonly open = new Map<string, Open<Q, A>>();

  /**
   * Asks `question` (the caller has just broadcast it) and waits for `answer(id, …)`;
   * resolves with `fallback` when `signal` aborts or after `timeoutMs`. A question whose id is
   * already open gets `fallback` at once: it must never take the place of the one the user sees
   * (an answer to that one would otherwise settle this one).
   */
  ask(id: string, question: Q, fallback: A, signal?: AbortSignal, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<A> {
    if (this.open.has(id)) return Promise.resolve(fallback);
    return new Promise<A>((resolve) => {
      const settle = (answer: A) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.open.delete(id);
        resolve(answer);
      };
      const onAbort = () => settle(fallback);
      const timer = setTimeout(onAbort, timeoutMs);
      if (signal?.aborted) return settle(fallback);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.open.set(id, { question, settle });
    });
  }

  has(id: string): boolean {
    return this.open.has(id);
  }

  /** False when nothing waits for `id` (already answered, or never asked). */
  answer(id: string, answer: A): boolean {
    const entry = this.open.get(id);
    if (!entry) return false;
    entry.settle(answer);
    return true;
  }

  get(id: string): Q | undefined {
    return this.open.get(id)?.question;
  }

  questions(): Q[] {
    return [...this.open.values()].map((o) => o.question);
  }
}
