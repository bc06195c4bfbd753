// The per-user cap on running MCP tasks (TASKS_PER_USER), across all the user's sessions:
// a session takes a slot here before it holds a task a server started
// (src/session/tasks/session-tasks.ts) and gives it back when the task ends. Each slot
// names its session, the tool call and the server's task, and carries a lease: a session
// holding running tasks polls them at least every minute and renews its slots with the
// list of what it still holds, which also drops any slot it lost track of (a crash
// between taking the slot and writing its row, a release that never arrived). A slot
// whose session stopped renewing (deleted, its storage gone) lapses at its lease, and
// never outlives its task's deadline, so a lost slot cannot block the user for long.
import { z } from "zod";

/** How long a slot stands without a renewal; sessions renew at half of it (TASK_SLOT_RENEW_MS). */
export const TASK_SLOT_LEASE_MS = 10 * 60_000;
export const TASK_SLOT_RENEW_MS = TASK_SLOT_LEASE_MS / 2;

/** What a session says of a task it holds (RPC input: parsed, a bad one is refused by name). */
export const TaskSlotSchema = z.object({
  session: z.string().min(1).max(200),
  callId: z.string().min(1).max(200),
  tool: z.string().min(1).max(300),
  taskId: z.string().min(1).max(1024),
  deadlineAt: z.number().int().nonnegative(),
});
export type TaskSlot = z.infer<typeof TaskSlotSchema>;

const HeldSchema = z.array(z.object({ callId: z.string().min(1).max(200), deadlineAt: z.number().int().nonnegative() })).max(1_000);
export type HeldTask = z.infer<typeof HeldSchema>[number];

export type SlotDecision = { ok: true } | { ok: false; limit: number };

export class TaskSlots {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS task_slots (
      session TEXT NOT NULL,
      call_id TEXT NOT NULL,
      tool TEXT NOT NULL,
      task_id TEXT NOT NULL,
      deadline_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (session, call_id)
    )`);
  }

  /**
   * Takes a slot for `slot` unless the user's running tasks reached `max`. Checked and taken
   * in one call of the account object, which runs one at a time, so tasks started together
   * in several sessions cannot pass the cap. Taking a slot the session already has is a renewal.
   */
  reserve(input: TaskSlot, max: number, now: number): SlotDecision {
    const slot = parsed(TaskSlotSchema, input);
    this.sweep(now);
    const held = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM task_slots WHERE session = ? AND call_id = ?", slot.session, slot.callId).one().n;
    if (held === 0 && this.running(now) >= max) return { ok: false, limit: max };
    this.sql.exec(
      `INSERT INTO task_slots (session, call_id, tool, task_id, deadline_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(session, call_id) DO UPDATE SET tool = excluded.tool, task_id = excluded.task_id, deadline_at = excluded.deadline_at, expires_at = excluded.expires_at`,
      slot.session,
      slot.callId,
      slot.tool,
      slot.taskId,
      slot.deadlineAt,
      expiry(slot.deadlineAt, now),
    );
    return { ok: true };
  }

  /** The session's tasks ended (or were forgotten): their slots are free. */
  release(session: string, callIds: string[]): void {
    for (const callId of callIds) this.sql.exec("DELETE FROM task_slots WHERE session = ? AND call_id = ?", session, callId);
  }

  /** Every slot of a session (its history cleared, the session deleted). */
  releaseSession(session: string): void {
    this.sql.exec("DELETE FROM task_slots WHERE session = ?", session);
  }

  /**
   * What the session still holds: those slots' leases start again, the session's other slots
   * are dropped. A held task with no slot (it lapsed while the session was away) gets one
   * back even past the cap: the task runs, so it counts.
   */
  renew(session: string, input: HeldTask[], now: number): void {
    const held = parsed(HeldSchema, input);
    const keep = new Set(held.map((h) => h.callId));
    const known = this.sql.exec<{ call_id: string }>("SELECT call_id FROM task_slots WHERE session = ?", session).toArray();
    for (const row of known) if (!keep.has(row.call_id)) this.sql.exec("DELETE FROM task_slots WHERE session = ? AND call_id = ?", session, row.call_id);
    for (const h of held) {
      this.sql.exec(
        `INSERT INTO task_slots (session, call_id, tool, task_id, deadline_at, expires_at) VALUES (?, ?, '', '', ?, ?)
         ON CONFLICT(session, call_id) DO UPDATE SET deadline_at = excluded.deadline_at, expires_at = excluded.expires_at`,
        session,
        h.callId,
        h.deadlineAt,
        expiry(h.deadlineAt, now),
      );
    }
  }

  /** Running tasks the user holds now (unexpired slots). */
  running(now: number): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM task_slots WHERE expires_at > ?", now).one().n;
  }

  clear(): void {
    this.sql.exec("DELETE FROM task_slots");
  }

  private sweep(now: number): void {
    this.sql.exec("DELETE FROM task_slots WHERE expires_at <= ?", now);
  }
}

/** RPC input as `schema` wants it; a bad one is a TypeError naming the field (a ZodError's message does not cross RPC). */
function parsed<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new TypeError(`task slot: ${issue?.path.join(".") || "input"}: ${issue?.message ?? "not valid"}`);
}

/** A slot stands for its lease, never past its task's deadline (a session ends the task then). */
function expiry(deadlineAt: number, now: number): number {
  return Math.min(deadlineAt, now + TASK_SLOT_LEASE_MS);
}
