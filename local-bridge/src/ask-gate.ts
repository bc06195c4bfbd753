// Which call a 2025 child's question belongs to. Over stdio nothing says (the v1 SDK's
// `relatedRequestId` only picks an HTTP stream; it never reaches the wire), so the
// bridge takes it to be the call running at the child whose client can be asked
// (server-requests.ts). That holds only while one such call runs: a 2026 call's
// questions become its `input_required` answer and its retry's answers go back as that
// call's, so a question taken to the wrong call is shown to the wrong client and
// answered for the wrong request. Hence the gate: a 2026 call that can be asked starts,
// or resumes after its client's answers, only while no other 2026 call of the same user
// that can be asked runs at the child; a 2026 call answered with questions is blocked on
// its client and does not hold the gate. The cost: one user's askable 2026 calls to one
// child run one at a time while none of them is asking. Not gated: calls of different
// users (a question while several users' calls run is refused: user-scope.ts, never
// guessed), 2025 sessions (a question goes to the session, whichever of its calls asked;
// one beside a 2026 call still goes to the oldest), calls whose client cannot be asked,
// lists, and task calls (their questions name their task: modern-task-feed.ts). Left: a
// child that asks again, unprompted, while its call is blocked on a question.
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Downstream, Pending } from "./downstream";

/** Requests whose handler does the server's work, and so may ask its client something. */
const WORK = new Set(["tools/call", "prompts/get", "resources/read", "completion/complete"]);

/** Whether the client behind `who` can be asked anything (elicitation, sampling, roots). */
export const askable = (who: Downstream): boolean => {
  const c = who.clientCapabilities;
  return c.elicitation !== undefined || c.sampling !== undefined || c.roots !== undefined;
};

/** Whether `request` of `who` goes through the gate. */
export function gated(who: Downstream, request: JSONRPCRequest): boolean {
  if (who.stateless !== true || !WORK.has(request.method) || !askable(who)) return false;
  const params = request.params as { task?: unknown } | undefined;
  return params?.task === undefined;
}

const conflict = (a: Downstream, b: Downstream) => a !== b && a.stateless === true && b.stateless === true && a.user === b.user;

export class AskGate {
  private readonly waiting: Array<{ who: Downstream; go: () => void }> = [];

  /** `inFlight`: the calls running at the child (proxy.ts pending). */
  constructor(private readonly inFlight: () => Iterable<Pending>) {}

  /** Runs `go` now if `who` may have a call running beside the others, else once it may (in arrival order). */
  enter(who: Downstream, go: () => void): void {
    if (this.waiting.length === 0 && this.free(who)) return go();
    this.waiting.push({ who, go });
  }

  /** A call ended or began waiting for its client: starts the waiting calls that may now run. */
  wake(): void {
    while (this.waiting.length > 0) {
      const first = this.waiting[0];
      if (!first || (first.who.done !== true && !this.free(first.who))) return;
      this.waiting.shift();
      if (first.who.done !== true) first.go();
    }
  }

  private free(who: Downstream): boolean {
    // A 2026 call has one call at the child: waiting here, that call is blocked on the gate.
    const held = new Set(this.waiting.map((w) => w.who));
    for (const call of this.inFlight()) {
      const other = call.session;
      if (held.has(other) || other.awaitingClient === true || !askable(other)) continue;
      if (conflict(who, other)) return false;
    }
    return true;
  }
}
