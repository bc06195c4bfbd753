// How a chat session builds its schedules from its other parts (session-parts.ts calls
// `buildSchedules`), and the RPC answers the Worker's routes get (src/http/schedules.ts): a
// typed refusal crosses the RPC boundary as its public form, never as a thrown error.
import type { Settings } from "../../config/settings";
import type { ScheduleView, ServerMessage } from "../../protocol/messages";
import { EdgehostError, type PublicError } from "../../shared/errors";
import type { Logger } from "../../shared/logger";
import type { SessionMcp } from "../mcp/session-mcp";
import type { TurnRunner } from "../turn-runner";
import type { UserAccount } from "../../users/UserAccount";
import type { OwnerAccess } from "./owner-access";
import { ScheduleRows } from "./schedule-rows";
import { type NewScheduleInput, type ScheduleNews, type ScheduleSlotPort, SessionSchedules } from "./session-schedules";

export interface ScheduleSite {
  sql: SqlStorage;
  mcp: () => SessionMcp;
  turns: () => TurnRunner;
  /** The object's alarm calls `runSchedules` at `at` or earlier; undefined cancels it (alarm-wake.ts). */
  wake: (at: number | undefined) => void;
  sendAll: (message: ServerMessage) => void;
  notice: (text: string) => void;
  /** A run ended or a schedule paused: the owner's devices hear it when they are away. */
  told: (news: ScheduleNews, turnId?: string) => void;
  settings: () => Settings;
  /** Whether the owner may still run schedules (owner-access.ts). */
  ownerAccess: () => Promise<OwnerAccess>;
  /** The owner's account's slots (SCHEDULES_PER_USER); undefined with no owner. */
  slots: () => ScheduleSlotPort | undefined;
  log: Logger;
}

export function buildSchedules(site: ScheduleSite): SessionSchedules {
  return new SessionSchedules({
    rows: new ScheduleRows(site.sql),
    tools: async () => {
      const mcp = site.mcp();
      await mcp.ensureConnected();
      return mcp.tools().map((t) => `${t.server}.${t.name}`);
    },
    start: async ({ text, scheduled }) => {
      const turns = site.turns();
      const refused = await turns.start(async () => ({ entries: [{ kind: "user", text, scheduled }], title: text }), {
        requestId: `schedule:${scheduled.id}`,
        scheduleId: scheduled.id,
      });
      if (refused) return { refused: { code: refused.code, message: refused.message } };
      const turnId = turns.running;
      // Ended before it ran (no model configured): already over, a failed run.
      if (!turnId) return { refused: { code: "no_model", message: "no model is configured" } };
      return { turnId };
    },
    running: () => site.turns().running !== undefined,
    wake: site.wake,
    broadcast: site.sendAll,
    notice: site.notice,
    told: site.told,
    limits: () => ({ perChat: site.settings().SCHEDULES_PER_CHAT, maxFailures: site.settings().SCHEDULE_MAX_FAILURES }),
    slots: site.slots,
    ownerAccess: site.ownerAccess,
    log: site.log,
  });
}

type Refusal = { refused: PublicError };

async function answer<T>(work: () => T | Promise<T>): Promise<T | Refusal> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EdgehostError) return { refused: error.toPublic() };
    throw error;
  }
}

/** The RPC side of the routes: what ChatSession's methods return. */
export const scheduleRpc = {
  create: (schedules: SessionSchedules, owner: string, input: NewScheduleInput): Promise<{ schedule: ScheduleView } | Refusal> =>
    answer(async () => ({ schedule: await schedules.create(owner, input) })),
  remove: (schedules: SessionSchedules, id: string): Promise<undefined | Refusal> =>
    answer(() => {
      schedules.remove(id);
      return undefined;
    }),
  resume: (schedules: SessionSchedules, id: string): Promise<{ schedule: ScheduleView } | Refusal> => answer(() => ({ schedule: schedules.resume(id) })),
};

/** The owner's account's schedule slots for chat `session`, capped at `limit` (src/users/schedule-slots.ts). */
export function accountScheduleSlots(
  account: Pick<DurableObjectStub<UserAccount>, "reserveScheduleSlot" | "releaseScheduleSlot">,
  session: string,
  limit: number,
): ScheduleSlotPort {
  return {
    reserve: async (schedule, held) => account.reserveScheduleSlot({ session, schedule, held }, limit),
    release: async (schedule) => void (await account.releaseScheduleSlot(session, schedule)),
  };
}
