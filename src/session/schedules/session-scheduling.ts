// ChatSession's scheduled runs (docs/schedules.md), one class of its chain (ChatSession.ts
// lists them): the schedules part, built on first use; the Worker's RPC for the routes
// (src/http/schedules.ts); the alarm callback `runSchedules`; a run's turn end heard from
// what the session broadcasts; the schedules removed with the chat.
import type { ScheduleView, ServerMessage } from "../../protocol/messages";
import { errorMessage } from "../../shared/logger";
import { cancelWakes, keepNameForAlarms, wakeAt } from "../alarm-wake";
import { SessionAlarms } from "../session-alarms";
import { operations } from "../../ops/operations-object";
import { userAccount } from "../../users/account";
import { ownerAccess } from "./owner-access";
import { accountScheduleSlots, buildSchedules, scheduleRpc } from "./schedule-parts";
import type { NewScheduleInput, SessionSchedules } from "./session-schedules";

export abstract class SessionScheduling extends SessionAlarms {
  private schedulesCache?: SessionSchedules;

  /** The chat's schedules (session-schedules.ts), wired to its turns, servers and alarm. */
  protected get schedules(): SessionSchedules {
    this.schedulesCache ??= buildSchedules({
      sql: this.ctx.storage.sql,
      mcp: () => this.parts.mcp,
      turns: () => this.parts.turns,
      wake: (at) => {
        if (at === undefined) return cancelWakes(this, "runSchedules");
        // The alarm may fire in a process that gives it no name (alarm-wake.ts).
        void keepNameForAlarms(this.ctx.storage, this.name).catch(() => undefined);
        wakeAt(this, "runSchedules", at, this.log);
      },
      sendAll: (message) => this.sendAll(message),
      notice: (text) => this.record({ turnId: null, kind: "notice", text }),
      told: (news, turnId) => this.parts.notices.toOwner({ ...news, session: this.name }, turnId),
      settings: () => this.runtime.settings,
      ownerAccess: async () => {
        const owner = this.parts.owner.id;
        if (!owner) return { may: "no", why: "it has no owner" };
        return ownerAccess({
          auth: this.runtime.auth,
          owner,
          lastSeen: (id) => operations(this.env).lastSeen(id),
          seenDays: this.runtime.settings.SCHEDULE_OWNER_SEEN_DAYS,
          now: Date.now(),
        });
      },
      slots: () => {
        const owner = this.parts.owner.id;
        return owner ? accountScheduleSlots(userAccount(this.env, owner), this.name, this.runtime.settings.SCHEDULES_PER_USER) : undefined;
      },
      log: this.log,
    });
    return this.schedulesCache;
  }

  /** Whether `server.tool` was pre-granted to the scheduled run `turnId` (approval/decision.ts: turn grants). */
  protected grantedToTurn(turnId: string, server: string, tool: string): boolean {
    // No schedules part this wake: no scheduled turn runs in it.
    return this.schedulesCache?.granted(turnId, server, tool) ?? false;
  }

  /** Questions of a scheduled run wait SCHEDULE_APPROVAL_WAIT_MINUTES (nobody may be up to answer); others the usual. */
  protected questionWaitMs(turnId: string | undefined): number | undefined {
    if (turnId === undefined || !this.schedulesCache?.isRun(turnId)) return undefined;
    return this.runtime.settings.SCHEDULE_APPROVAL_WAIT_MINUTES * 60_000;
  }

  /**
   * Every broadcast passes here: a scheduled run's `turn_end` counts for its schedule. Heard
   * after the pages got it, so a page sees the turn end before the list changes.
   */
  protected override sendAll(message: ServerMessage): void {
    super.sendAll(message);
    this.schedulesCache?.heard(message);
  }

  // ---- RPC for the routes (the Worker checked the caller owns this chat) ----

  chatSchedules(): ScheduleView[] {
    return this.schedules.list();
  }

  createSchedule(owner: string, input: NewScheduleInput) {
    return this.keepAliveWhile(() => scheduleRpc.create(this.schedules, owner, input));
  }

  removeSchedule(id: string) {
    return scheduleRpc.remove(this.schedules, id);
  }

  resumeSchedule(id: string) {
    return scheduleRpc.resume(this.schedules, id);
  }

  /** Alarm callback: the due runs start (one turn at a time); never throws (agents would retry it 3×). */
  async runSchedules(_payload?: unknown, _schedule?: unknown, now = Date.now()): Promise<void> {
    try {
      await this.keepAliveWhile(() => this.schedules.run(now));
    } catch (error) {
      this.log.error("scheduled runs failed", { error: errorMessage(error) });
    }
  }

  override async deleteSession(): Promise<void> {
    await super.deleteSession();
    this.schedules.forget();
  }
}
