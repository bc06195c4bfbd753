// Which call a 2025 child's question belongs to. Over stdio nothing says (the v1 SDK's
// `relatedRequestId` only picks an HTTP stream; it never reaches the wire), so the
// bridge takes it to be the call running at the child whose client can be asked
// (server-requests.ts). That holds only while one caller's calls run: a question taken
// for the wrong 2026 call becomes that call's `input_required` answer, one taken for
// another 2025 session is shown to another client (conformance: two elicitation
// scenarios at once, each answered the other's question). Hence the gate: a call that
// can be asked starts, or a 2026 call resumes with its client's answers, only while no
// other caller of the same user that can be asked (another session, another 2026
// request) has a call running at the child. A call whose question waits for its client
// is blocked on it and does not hold the gate. The cost: one user's askable callers take
// turns at one child while none of them is asking (a session's own calls still run side
// by side: its questions go to the session either way). Not gated: calls of different
// users (a question while several users' calls run is refused: user-scope.ts, never
// guessed), calls whose client cannot be asked, lists, and task calls (their questions
// name their task: modern-task-feed.ts). Left: a child that asks again, unprompted, while
// its call is blocked on a question. Only a child that has asked something takes part: most
// children (a filesystem, a search) never ask, and their calls never wait on each other
// (a model's parallel calls in a turn stay parallel); a child's very first question, while
// several askable calls run, is taken for the oldest of them, as before the gate.
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
  if (!WORK.has(request.method) || !askable(who)) return false;
  const params = request.params as { task?: unknown } | undefined;
  return params?.task === undefined;
}

const conflict = (a: Downstream, b: Downstream) => a !== b && a.user === b.user;

export class AskGate {
  private readonly waiting: Array<{ who: Downstream; go: () => void }> = [];
  /** Whether the child has ever asked its clients something (until then nothing waits). */
  private hasAsked = false;

  constructor(
    /** The calls running at the child (proxy.ts pending). */
    private readonly inFlight: () => Iterable<Pending>,
    /** Whether a caller is still there (a session closed or a 2026 call given up is not: what it left waiting is dropped). */
    private readonly present: (who: Downstream) => boolean,
  ) {}

  /** Runs `go` now if `who` may have a call running beside the others, else once it may (in arrival order). */
  enter(who: Downstream, go: () => void): void {
    if (!this.hasAsked || (this.waiting.length === 0 && this.free(who))) return go();
    this.waiting.push({ who, go });
  }

  /** The child asked a client something: from now on its askable calls take turns. */
  asked(): void {
    this.hasAsked = true;
  }

  /** A call ended or began waiting for its client: starts the waiting calls that may now run. */
  wake(): void {
    while (this.waiting.length > 0) {
      const first = this.waiting[0];
      if (!first) return;
      const there = first.who.done !== true && this.present(first.who);
      if (there && !this.free(first.who)) return;
      this.waiting.shift();
      if (there) first.go();
    }
  }

  private free(who: Downstream): boolean {
    // A 2026 call has one call at the child: waiting here (to resume), that call is blocked on the gate.
    const held = new Set(this.waiting.filter((w) => w.who.stateless === true).map((w) => w.who));
    for (const call of this.inFlight()) {
      const other = call.session;
      if (held.has(other) || other.awaitingClient === true || (call.asking ?? 0) > 0 || !askable(other)) continue;
      if (conflict(who, other)) return false;
    }
    return true;
  }
}
