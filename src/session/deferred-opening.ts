// A turn's opening (its tree node, the question's entries, `runningTurn`, `turn_start`)
// written after the model request is on its way, not before it (issue 37).
//
// Why: a fetch from a Durable Object waits for the storage writes made before it to
// commit (workerd's output gate), so the opening's writes put a commit (an fsync, 4-14 ms
// under load) between Enter and the model's request. Made a macrotask after the request
// was issued, that commit overlaps the model's own time to its first chunk; the first
// `text` frame still waits for it, so frames keep their order (entry -> turn_start -> text).
//
// The opening runs once, at the first of: a macrotask after the model request (`soon`,
// from `afterRequest`), anything the turn records or sends (`now`), the turn's end. A
// turn dropped before (its session deleted) never opens: it stores and sends nothing.
import type { LlmProvider } from "../llm/provider";

/** Writes waiting for the macrotask after the model request, per session (its store): see `afterRequest`. */
const batches = new WeakMap<object, (() => void)[]>();

/**
 * Runs `write` at the object's next macrotask, with every other write so deferred for `session` in
 * that same macrotask: one storage commit for them all (the admission's pending-usage and budget-hold
 * writes, session-owner.ts, and the turn's opening), not one each in series before the first text frame.
 */
export function afterRequest(session: object, write: () => void): void {
  let batch = batches.get(session);
  if (!batch) {
    const writes: (() => void)[] = [];
    batch = writes;
    batches.set(session, writes);
    setTimeout(() => {
      batches.delete(session);
      for (const run of writes) run();
    }, 0);
  }
  batch.push(write);
}

export class DeferredOpening {
  private state: "pending" | "opened" | "skipped" = "pending";
  private scheduled = false;

  /** `session`: whose other deferred writes the opening joins (afterRequest). */
  constructor(
    private readonly open: () => void,
    private readonly session: object = {},
  ) {}

  /** Not written yet, and not dropped. */
  get pending(): boolean {
    return this.state === "pending";
  }

  /** Dropped before it opened: the turn stores and sends nothing. */
  get skipped(): boolean {
    return this.state === "skipped";
  }

  /** Writes and sends the opening now, once (nothing if dropped). */
  now(): void {
    if (this.state !== "pending") return;
    this.state = "opened";
    this.open();
  }

  /** The session is being deleted: the opening is never written. */
  skip(): void {
    if (this.state === "pending") this.state = "skipped";
  }

  /** `store`, opening first; once dropped, left out (a dropped turn stores and sends nothing). */
  first<A extends unknown[]>(store: (...args: A) => void): (...args: A) => void {
    return (...args) => {
      this.now();
      if (!this.skipped) store(...args);
    };
  }

  /** `act`, opening first: for what the turn asks (an approval), answered even once dropped (the aborted turn ends at once). */
  after<A extends unknown[], R>(act: (...args: A) => R): (...args: A) => R {
    return (...args) => {
      this.now();
      return act(...args);
    };
  }

  /** Opens at the object's next macrotask: after the fetch the current one issues. */
  soon(): void {
    if (this.scheduled || this.state !== "pending") return;
    this.scheduled = true;
    afterRequest(this.session, () => this.now());
  }

  /**
   * `inner`, opening soon after a request starts: the provider issues its fetch within the
   * microtasks after `stream` is pulled, before the timer's macrotask runs.
   */
  afterRequest(inner: LlmProvider): LlmProvider {
    return {
      name: inner.name,
      model: inner.model,
      stream: (request) => {
        this.soon();
        return inner.stream(request);
      },
    };
  }
}
