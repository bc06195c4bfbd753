// What a session's tasks ask of the owner's account for the per-user cap on running tasks
// (src/users/task-slots.ts): a slot before a task is held, its release when the task
// ended, and a renewal with what the session still holds (at most every TASK_SLOT_RENEW_MS).
import type { UserAccount } from "../../users/UserAccount";
import type { HeldTask, SlotDecision, TaskSlot } from "../../users/task-slots";

export { TASK_SLOT_RENEW_MS } from "../../users/task-slots";

export interface TaskSlotPort {
  /** The most running tasks the owner may have, across their sessions. */
  readonly limit: number;
  reserve(slot: Omit<TaskSlot, "session">): Promise<SlotDecision>;
  release(callIds: string[]): Promise<void>;
  renew(held: HeldTask[]): Promise<void>;
}

/** The owner's account's slots, for session `session`. */
export function accountTaskSlots(
  account: Pick<DurableObjectStub<UserAccount>, "reserveTaskSlot" | "releaseTaskSlots" | "renewTaskSlots">,
  session: string,
  limit: number,
): TaskSlotPort {
  return {
    limit,
    reserve: async (slot) => account.reserveTaskSlot({ ...slot, session }, limit),
    release: async (callIds) => void (await account.releaseTaskSlots(session, callIds)),
    renew: async (held) => void (await account.renewTaskSlots(session, held)),
  };
}
