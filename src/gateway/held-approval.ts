// A call held while the person's page shows its approval (design-38 §2.5 b/d/e): for a client
// that cannot ask its person (no elicitation), the app object writes the question into the
// person's account (src/users/gateway-questions.ts), where their page lists it, and waits up
// to GATEWAY_HOLD_MS for the answer. Not answered in time, the question stays open 10 minutes
// and the client is told `approval_pending`; an approval given later becomes a one-shot for
// that tool with those very arguments: the client's next identical call runs once, unasked.
// One per app object (GatewayApp): the waits are in its memory, the one-shots in its storage.
import type { SettingsStore } from "../approval/approvals";
import type { HeldQuestion, QuestionAsked } from "../users/gateway-questions";

/** How long a held question can be answered in the page, and a later approval's one-shot kept. */
export const QUESTION_OPEN_MS = 10 * 60_000;
/** A held call tells a client that asked for progress that it still waits, this often. */
const PROGRESS_EVERY_MS = 10_000;
const ONE_SHOTS_KEY = "heldOneShots";

type OneShot = { tool: string; argsHash: string; until: number };

export interface HoldRequest {
  appId: string;
  /** `server.tool` and the SHA-256 of its canonical arguments (approval-ask.ts's hashArgs). */
  qualified: string;
  argsHash: string;
  question: HeldQuestion;
  holdMs: number;
  signal: AbortSignal;
  /** Writes the question into the person's account; false when it cannot be held there (not a listed app, too many open). */
  record: (asked: QuestionAsked) => Promise<boolean>;
  progress?: (progress: { progress: number; message: string }) => void;
}

export type HoldOutcome =
  | { kind: "approved" }
  | { kind: "declined" }
  | { kind: "pending"; questionId: string; expiresAt: number }
  | { kind: "cannot_hold" }
  | { kind: "cancelled" };

type Open = { id: string; qualified: string; argsHash: string; expiresAt: number; waiter?: (approved: boolean) => void };

export class HeldApprovals {
  /** Questions this object asked that are still open in the account, by id. */
  private readonly open = new Map<string, Open>();

  constructor(private readonly store: SettingsStore) {}

  /** An approval given in the page after its hold ended, for exactly this call: taken (it runs once). */
  takeOneShot(qualified: string, argsHash: string, now = Date.now()): boolean {
    const shots = this.oneShots(now);
    const index = shots.findIndex((s) => s.tool === qualified && s.argsHash === argsHash);
    if (index < 0) return false;
    shots.splice(index, 1);
    this.store.setSetting(ONE_SHOTS_KEY, shots.length > 0 ? shots : undefined);
    return true;
  }

  /**
   * Holds one call until the page answers, the hold ends or the client gives up. A retry of a
   * call whose question is still open (and waited on by nobody) waits on that same question,
   * so the page shows one question per call, not one per retry.
   */
  async hold(request: HoldRequest): Promise<HoldOutcome> {
    const now = Date.now();
    let open = [...this.open.values()].find((o) => o.qualified === request.qualified && o.argsHash === request.argsHash && !o.waiter && o.expiresAt > now);
    if (!open) {
      const asked = {
        appId: request.appId,
        id: crypto.randomUUID(),
        question: request.question,
        argsHash: request.argsHash,
        expiresAt: now + QUESTION_OPEN_MS,
      };
      if (!(await request.record(asked))) return { kind: "cannot_hold" };
      open = { id: asked.id, qualified: request.qualified, argsHash: request.argsHash, expiresAt: asked.expiresAt };
      this.open.set(open.id, open);
    }
    const question = open;
    const answered = await new Promise<boolean | "timeout" | "cancelled">((resolve) => {
      let ticks = 0;
      const tell = () => request.progress?.({ progress: ticks++, message: "waiting for your approval in edgehost" });
      const settle = (result: boolean | "timeout" | "cancelled") => {
        clearTimeout(timer);
        clearInterval(ticker);
        request.signal.removeEventListener("abort", onAbort);
        question.waiter = undefined;
        resolve(result);
      };
      const onAbort = () => settle("cancelled");
      const timer = setTimeout(() => settle("timeout"), request.holdMs);
      const ticker = setInterval(tell, PROGRESS_EVERY_MS);
      if (request.signal.aborted) return settle("cancelled");
      request.signal.addEventListener("abort", onAbort, { once: true });
      question.waiter = (approved) => settle(approved);
      tell();
    });
    if (answered === true) return { kind: "approved" };
    if (answered === false) return { kind: "declined" };
    if (answered === "cancelled") return { kind: "cancelled" };
    return { kind: "pending", questionId: question.id, expiresAt: question.expiresAt };
  }

  /**
   * The page answered a question of this app (the account took the answer once). A call held
   * on it runs or is denied now; with none held, an approval becomes the one-shot of that call.
   */
  answered(id: string, approved: boolean, qualified: string, argsHash: string, now = Date.now()): "held_call" | "one_shot" | "declined" {
    const open = this.open.get(id);
    this.open.delete(id);
    if (open?.waiter) {
      open.waiter(approved);
      return approved ? "held_call" : "declined";
    }
    if (!approved) return "declined";
    const shots = this.oneShots(now).filter((s) => !(s.tool === qualified && s.argsHash === argsHash));
    shots.push({ tool: qualified, argsHash, until: now + QUESTION_OPEN_MS });
    this.store.setSetting(ONE_SHOTS_KEY, shots);
    return "one_shot";
  }

  /** Disconnect: held calls are denied, one-shots forgotten. */
  forget(): void {
    for (const open of this.open.values()) open.waiter?.(false);
    this.open.clear();
    this.store.setSetting(ONE_SHOTS_KEY, undefined);
  }

  private oneShots(now: number): OneShot[] {
    return (this.store.getSetting<OneShot[]>(ONE_SHOTS_KEY) ?? []).filter((s) => s.until > now);
  }
}
