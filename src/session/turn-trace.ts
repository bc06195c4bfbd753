// One turn's phases as the Worker sees them, on its `turn ended` log line as `phases` (ms
// from each mark to the next), so a slow turn can be taken apart from that one line, and
// `npm run bench:trace` prints their means. The Workers runtime advances the
// clock only at I/O (an incoming event, a fetch's answer, a storage read), so each mark
// is the time of the last I/O before it and each phase is "waiting for that I/O plus the
// work done since the previous one": the admission call to the account, the model's
// first event, a tool's result. Work between two I/O events is in the phase it ends;
// a commit a frame waits for (the output gate) is outside the isolate and in none of them.
import type { LlmProvider } from "../llm/provider";

export class TurnTrace {
  private readonly marks: { name: string; at: number }[] = [];
  private models = 0;
  private tools = 0;

  constructor(private readonly now: () => number = Date.now) {
    this.mark("received");
  }

  mark(name: string): void {
    this.marks.push({ name, at: this.now() });
  }

  /** `inner`, marking when each of its answers began and ended. */
  provider(inner: LlmProvider): LlmProvider {
    const trace = this;
    return {
      name: inner.name,
      model: inner.model,
      async *stream(request) {
        const n = ++trace.models;
        let first = true;
        for await (const event of inner.stream(request)) {
          if (first) trace.mark(`model ${n} answering`);
          first = false;
          yield event;
        }
        trace.mark(`model ${n} done`);
      },
    };
  }

  /** Marks a tool call's result. */
  toolDone(): void {
    this.mark(`tool ${++this.tools} done`);
  }

  /** "a → b": ms from mark a to mark b, in order. */
  phases(): Record<string, number> {
    const out: Record<string, number> = {};
    for (let i = 1; i < this.marks.length; i++) {
      const [from, to] = [this.marks[i - 1], this.marks[i]];
      if (from && to) out[`${from.name} → ${to.name}`] = to.at - from.at;
    }
    return out;
  }
}
