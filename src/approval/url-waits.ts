// URL-mode elicitations the person agreed to: from then on the server is awaited, not
// the person (MCP: `accept` means "I agreed to go", not "I am done"). Every page shows
// "waiting for <host>…" until the server says it is complete:
//   - 2025-11-25: `notifications/elicitation/complete` with the request's elicitationId;
//   - 2026-07-28 (no such notification): the retry that carried the answer came back, which the
//     session sees as the call to that server ending, or the server asking again (another round).
// A call that ends says so on either era, since a server need not send the notification.
import type { ServerMessage } from "../protocol/messages";

type UrlQuestion = Extract<ServerMessage, { type: "elicitation_request" }>;

interface Wait {
  question: UrlQuestion;
  elicitationId?: string;
  timer: ReturnType<typeof setTimeout>;
  /** Settles what `start` returned: true when the server is done, false when the wait ran out or was given up. */
  ended: (done: boolean) => void;
  /** A -32042 call waits on this one: only the server's completion or the person ends it, not other calls. */
  held: boolean;
}

/** As long as a question may stay open (questions.ts): a server that never answers does not keep a dialog forever. */
const WAIT_LIMIT_MS = 10 * 60_000;

export class UrlWaits {
  private readonly waiting = new Map<string, Wait>();

  constructor(
    private readonly broadcast: (message: ServerMessage) => void,
    private readonly limitMs = WAIT_LIMIT_MS,
  ) {}

  /**
   * The person agreed to open `question`'s URL: every page waits for its server. Resolves true
   * once the server is done, false when the wait ran out or `signal` gave it up. `held`: a call
   * refused with -32042 waits on it (settled() does not end it).
   */
  start(question: UrlQuestion, elicitationId: string | undefined, signal?: AbortSignal, held = false): Promise<boolean> {
    const { requestId } = question;
    return new Promise<boolean>((resolve) => {
      const onAbort = () => this.end(requestId, false);
      const timer = setTimeout(onAbort, this.limitMs);
      const ended = (done: boolean) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(done);
      };
      this.waiting.set(requestId, { question, timer, ended, held, ...(elicitationId ? { elicitationId } : {}) });
      this.broadcast({ type: "elicitation_waiting", requestId });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** `server` said its URL elicitation `elicitationId` is complete (2025-11-25). */
  complete(server: string, elicitationId: string): void {
    for (const [id, wait] of this.waiting) if (wait.question.server === server && wait.elicitationId === elicitationId) this.end(id);
  }

  /**
   * A call to `server` ended, or `server` asks again: what was awaited of it is over. A
   * call running beside the one that asked ends the wait as well (the session cannot
   * tell which call a 2026 round belongs to); only the dialog closes, no call is touched.
   * A held wait (-32042) is not ended so: its call has not ended, and would be sent again.
   */
  settled(server: string): void {
    for (const [id, wait] of this.waiting) if (wait.question.server === server && !wait.held) this.end(id);
  }

  /**
   * The person's word on a wait (the page's "I'm done", or giving up): `done` ends it as if
   * the server said so (MCP asks clients for such a manual control: a server need not tell).
   * False when nothing waits under `requestId`.
   */
  finish(requestId: string, done: boolean): boolean {
    if (!this.waiting.has(requestId)) return false;
    this.end(requestId, done);
    return true;
  }

  /** For a page that connects mid-wait: the question, then that it is awaited. */
  pending(): ServerMessage[] {
    return [...this.waiting.values()].flatMap(({ question }) => [question, { type: "elicitation_waiting", requestId: question.requestId } as const]);
  }

  private end(requestId: string, done = true): void {
    const wait = this.waiting.get(requestId);
    if (!wait) return;
    clearTimeout(wait.timer);
    this.waiting.delete(requestId);
    this.broadcast({ type: "elicitation_resolved", requestId });
    wait.ended(done);
  }
}
