// What a chat's schedules need from the session (ChatSession wires them, schedule-parts.ts), and
// what they tell it: shared by session-schedules.ts (made, listed, woken) and schedule-runs.ts
// (one run's bookkeeping), so neither imports the other's types.
import type { ServerMessage } from "../../protocol/messages";
import type { Logger } from "../../shared/logger";
import type { OwnerAccess } from "./owner-access";
import type { ScheduleRows } from "./schedule-rows";

export interface ScheduleDeps {
  rows: ScheduleRows;
  /** The chat's tools now, as `server.tool` (connecting first). */
  tools: () => Promise<string[]>;
  /** Starts the run's turn: its id, or the refusal (rate limit, budget, a turn running…). */
  start: (opening: { text: string; scheduled: { id: string; spec: string } }) => Promise<{ turnId: string } | { refused: { code: string; message: string } }>;
  running: () => boolean;
  /** The object's alarm calls `runSchedules` at `at` or earlier; `undefined`: no run is due, no job kept. */
  wake: (at: number | undefined) => void;
  /** Every open page of the chat hears the list. */
  broadcast: (message: ServerMessage) => void;
  /** A notice entry in the chat (a schedule paused). */
  notice: (text: string) => void;
  /** A run ended (`turnId` its turn), or a schedule paused: for the owner's devices (notify/away-notices.ts toOwner). */
  told?: (news: ScheduleNews, turnId?: string) => void;
  limits: () => { perChat: number; maxFailures: number };
  /** Whether the owner may still run schedules (owner-access.ts); asked once per alarm with runs due. */
  ownerAccess?: () => Promise<OwnerAccess>;
  /** The owner's cap across their chats (src/users/schedule-slots.ts); undefined: not counted (no owner). */
  slots?: () => ScheduleSlotPort | undefined;
  log: Logger;
  now?: () => number;
}

/** What the owner's devices are told (src/push/notice.ts): how a run ended, never what it said. */
export type RunOutcome = "completed" | "failed" | "cancelled";
export type ScheduleNews = { kind: "schedule_done"; ref: string; outcome: RunOutcome } | { kind: "schedule_paused"; ref: string };

/** The owner's account's schedule slots, as this chat sees them (schedule-parts.ts). */
export interface ScheduleSlotPort {
  /** `held`: the chat's other schedules (the account's record of this chat becomes exactly these plus the new one). */
  reserve(schedule: string, held: string[]): Promise<{ ok: true } | { ok: false; limit: number }>;
  /** One schedule's slot, or every slot of this chat. */
  release(schedule?: string): Promise<void>;
}
