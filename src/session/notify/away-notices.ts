// Pushes for the people who are away. It hears what the session broadcasts (approval and
// question requests, their answers, turn starts and ends) and, for each person who may answer
// and has no visible tab on this chat, hands their account a notice (src/users/push-delivery.ts
// sends it to their devices). Late push: a tab hidden (or closed) after a question appeared
// gets the push then. Nothing here waits on the turn's path: sending is the caller's
// background work. A notice never carries arguments or results (src/push/notice.ts).
import type { ServerMessage } from "../../protocol/messages";
import type { PushNotice } from "../../push/notice";

/** How long a question waits (approval/questions.ts DEFAULT_TIMEOUT_MS): what a push's action is good for. */
export const QUESTION_WAIT_MS = 10 * 60_000;

export interface AwayDeps {
  session: () => string;
  /** Who may answer this chat's questions (presence-watch.ts answerers). */
  answerers: () => string[];
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
        if (started === undefined || now - started < this.deps.longTurnMs()) return;
        for (const user of this.away()) this.deps.push(user, { kind: "turn_done", session: this.deps.session(), ref: message.turnId });
        return;
      }
      default:
        return;
    }
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
