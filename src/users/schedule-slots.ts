// The per-person cap on schedules (SCHEDULES_PER_USER) across all their chats: a chat takes a
// slot here before it keeps a new schedule (src/session/schedules/session-schedules.ts) and
// gives it back when the schedule goes (removed, a `once` that ran, the chat deleted). Each
// reservation also carries the chat's other schedules, which replace what this object knew of
// that chat: a release lost on the way (a crash, an RPC that failed) is mended at the chat's
// next reservation, never left to block the person for good.
import { z } from "zod";

const IdSchema = z.string().min(1).max(200);
const ReserveSchema = z.object({ session: IdSchema, schedule: IdSchema, held: z.array(IdSchema).max(1_000) });
export type ScheduleSlotRequest = z.infer<typeof ReserveSchema>;

export type ScheduleSlotDecision = { ok: true } | { ok: false; limit: number };

export class ScheduleSlots {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS schedule_slots (session TEXT NOT NULL, schedule TEXT NOT NULL, PRIMARY KEY (session, schedule))`);
  }

  /**
   * Takes a slot for a new schedule unless the person holds `max` already. Checked and taken in
   * one call of the account object, which runs one at a time, so schedules made together in
   * several chats cannot pass the cap.
   */
  reserve(input: ScheduleSlotRequest, max: number): ScheduleSlotDecision {
    const request = parsed(input);
    this.sync(request.session, request.held);
    if (this.count() >= max) return { ok: false, limit: max };
    this.sql.exec("INSERT OR IGNORE INTO schedule_slots (session, schedule) VALUES (?, ?)", request.session, request.schedule);
    return { ok: true };
  }

  release(session: string, schedule: string): void {
    this.sql.exec("DELETE FROM schedule_slots WHERE session = ? AND schedule = ?", session, schedule);
  }

  /** Every slot of a chat (it was deleted, or its schedules were removed). */
  releaseSession(session: string): void {
    this.sql.exec("DELETE FROM schedule_slots WHERE session = ?", session);
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM schedule_slots").one().n;
  }

  clear(): void {
    this.sql.exec("DELETE FROM schedule_slots");
  }

  /** The chat's slots become exactly `held`. */
  private sync(session: string, held: string[]): void {
    const keep = new Set(held);
    const known = this.sql.exec<{ schedule: string }>("SELECT schedule FROM schedule_slots WHERE session = ?", session).toArray();
    for (const row of known) if (!keep.has(row.schedule)) this.release(session, row.schedule);
    for (const id of keep) this.sql.exec("INSERT OR IGNORE INTO schedule_slots (session, schedule) VALUES (?, ?)", session, id);
  }
}

/** RPC input as it must be; a bad one is a TypeError naming the field (a ZodError's message does not cross RPC). */
function parsed(input: unknown): ScheduleSlotRequest {
  const result = ReserveSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new TypeError(`schedule slot: ${issue?.path.join(".") || "input"}: ${issue?.message ?? "not valid"}`);
}
