// The cap on running tasks as a session applies it: a slot with the owner's account for
// each task it holds (task-slot-port.ts, per user across their sessions), given back when
// the task ends, and renewed from the polls with the list of what the session holds, so
// a slot the session lost track of is dropped. A session with no owner (no account to ask)
// counts its own rows against the same limit.
import type { StartedTask } from "../../mcp/tasks";
import { errorMessage, type Logger } from "../../shared/logger";
import { TASK_SLOT_RENEW_MS, type TaskSlotPort } from "./task-slot-port";
import type { TaskRows } from "./task-rows";

export interface TaskCapDeps {
  rows: TaskRows;
  slots: () => TaskSlotPort | undefined;
  /** The limit when there is no account to ask. */
  limit: number;
  log: Logger;
  now: () => number;
}

export class TaskCap {
  /** Slots taken whose rows are not written yet, with their deadlines: a renewal in between keeps them. */
  private readonly taking = new Map<string, number>();
  private renewedAt = 0;

  constructor(private readonly deps: TaskCapDeps) {}

  /**
   * Takes a slot for the task call `callId` starts: undefined when taken, else the limit it
   * hit. Rejects when the account cannot be asked (the caller cancels the task: the cap is
   * not skipped). The caller calls `written` once the row is in (or the task refused).
   */
  async take(task: StartedTask, callId: string, deadlineAt: number): Promise<number | undefined> {
    const slots = this.deps.slots();
    if (!slots) return this.deps.rows.running() >= this.deps.limit ? this.deps.limit : undefined;
    this.taking.set(callId, deadlineAt);
    const decision = await slots.reserve({ callId, tool: `${task.server}.${task.tool}`, taskId: task.taskId, deadlineAt });
    return decision.ok ? undefined : decision.limit;
  }

  written(callId: string): void {
    this.taking.delete(callId);
  }

  /** Tasks ended or forgotten: their slots are free. Not awaited; a lost release is dropped by the next renewal or lapses. */
  free(callIds: string[]): void {
    const slots = this.deps.slots();
    if (!slots || callIds.length === 0) return;
    void slots.release(callIds).catch((error: unknown) => this.deps.log.info("task slot release failed", { error: errorMessage(error) }));
  }

  /** From a poll: renews the session's slots with what it holds, at most every TASK_SLOT_RENEW_MS (and at the first poll of a wake). */
  async renewIfDue(): Promise<void> {
    const slots = this.deps.slots();
    const now = this.deps.now();
    if (!slots || now - this.renewedAt < TASK_SLOT_RENEW_MS) return;
    this.renewedAt = now;
    const held = this.deps.rows
      .all()
      .filter((row) => row.outcome === null)
      .map((row) => ({ callId: row.callId, deadlineAt: row.deadlineAt }));
    for (const [callId, deadlineAt] of this.taking) held.push({ callId, deadlineAt });
    await slots.renew(held).catch((error: unknown) => {
      this.renewedAt = 0;
      this.deps.log.info("task slot renewal failed", { error: errorMessage(error) });
    });
  }
}
