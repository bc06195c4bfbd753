// Pushes for the people who are away. It hears what the session broadcasts (approval and
// question requests, their answers, turn starts and ends) and, for each person who may answer
// (the owner, and approvers in a shared chat, each with their own action token) and has no
// visible tab on this chat, hands their account a notice (src/users/push-delivery.ts
// sends it to their devices). Late push: a tab hidden (or closed) after a question appeared
// gets the push then. A scheduled run's end (or its schedule paused) goes to the owner alone,
// in place of the long turn's "answer ready". Nothing here waits on the turn's path: sending
// is the caller's background work. A notice never carries arguments or results (src/push/notice.ts).
import type { ServerMessage } from "../../protocol/messages";
import type { PushNotice } from "../../push/notice";

/** How long a question waits (approval/questions.ts DEFAULT_TIMEOUT_MS): what a push's action is good for. */
export const QUESTION_WAIT_MS = 10 * 60_000;

export interface AwayDeps {
  session: () => string;
  /** Who may answer this chat's questions (presence-watch.ts answerers). */
  answerers: () => string[];
  /** The chat's owner: the person its schedules run for. */
  owner: () => string | undefined;
  /** People with a visible tab on this chat now (presence-watch.ts visiblePeople). */
  visible: () => Set<string>;
  /** Sends `notice` to `user`'s devices, in the background (never throws). */
  push: (user: string, notice: PushNotice) => void;
  /** A turn at least this long (ms) tells its sender it ended. */
  longTurnMs: () => number;
  /** How long a question of turn `turnId` waits (a scheduled run's is longer); undefined: QUESTION_WAIT_MS. */
  waitMs?: (turnId: string | undefined) => number | undefined;
  /** The approval was answered (anywhere): its notification's tokens stop working (action-tokens.ts). */
  settled?: (callId: string) => void;
}

interface OpenQuestion {
  notice: PushNotice;
  /** People already pushed about it. */
  pushed: Set<string>;
}

export class AwayNotices {
  private readonly open = new Map<string, OpenQuestion>();
  private readonly turnStarted = new Map<string, number>();
  /** Scheduled runs whose end was told already (toOwner): their turn_end, heard next, pushes nothing more. */
  private readonly told = new Set<string>();

  constructor(private readonly deps: AwayDeps) {}

  heard(message: ServerMessage, now = Date.now()): void {
    switch (message.type) {
      case "approval_request": {
        const expiresAt = now + (this.deps.waitMs?.(message.turnId ?? undefined) ?? QUESTION_WAIT_MS);
        const notice = {
          kind: "approval" as const,
          session: this.deps.session(),
          ref: message.callId,
          server: message.server,
          tool: message.tool ?? "sampling",
          expiresAt,
        };
        this.ask(message.callId, notice);
        return;
      }
      case "elicitation_request":
        this.ask(message.requestId, {
          kind: "question",
          session: this.deps.session(),
          ref: message.requestId,
          server: message.server,
          expiresAt: now + (this.deps.waitMs?.(undefined) ?? QUESTION_WAIT_MS),
        });
        return;
      case "approval_resolved":
        this.open.delete(message.callId);
        this.deps.settled?.(message.callId);
        return;
      case "elicitation_resolved":
        this.open.delete(message.requestId);
        return;
      case "turn_start":
        this.turnStarted.set(message.turnId, now);
        return;
      case "turn_end": {
        const started = this.turnStarted.get(message.turnId);
        this.turnStarted.delete(message.turnId);
        if (this.told.delete(message.turnId)) return;
        if (started === undefined || now - started < this.deps.longTurnMs()) return;
        // The owner's alone, as before sharing: an approver is pushed what waits for an answer, not every turn's end.
        this.toOwner({ kind: "turn_done", session: this.deps.session(), ref: message.turnId });
        return;
      }
      default:
        return;
    }
  }

  /**
   * A schedule's news for its owner (a run ended, the schedule paused), pushed when none of
   * their tabs on this chat is visible. `turnId`: the run whose turn_end is heard right after
   * (session-scheduling hears it first) and so pushes no "answer ready" as well.
   */
  toOwner(notice: PushNotice, turnId?: string): void {
    if (turnId) this.told.add(turnId);
    const owner = this.deps.owner();
    if (owner && !this.deps.visible().has(owner)) this.deps.push(owner, notice);
  }

  /** A tab was hidden or closed: questions still open that its person was not pushed about are pushed now. */
  late(): void {
    for (const question of this.open.values()) this.pushAway(question);
  }

  private ask(ref: string, notice: OpenQuestion["notice"]): void {
    const question = { notice, pushed: new Set<string>() };
    this.open.set(ref, question);
    this.pushAway(question);
  }

  private pushAway(question: OpenQuestion): void {
    for (const user of this.away()) {
      if (question.pushed.has(user)) continue;
      question.pushed.add(user);
      this.deps.push(user, question.notice);
    }
  }

  private away(): string[] {
    const visible = this.deps.visible();
    return this.deps.answerers().filter((user) => !visible.has(user));
  }
}
