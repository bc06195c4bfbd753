// A chat's schedules in its SQLite: one row each, read through zod (a row that does not
// parse is skipped, never thrown). What the page sees of a row is `ScheduleView`.
import { z } from "zod";
import type { ScheduleView } from "../../protocol/messages";

const RowSchema = z.object({
  id: z.string(),
  created_by: z.string(),
  spec: z.string(),
  cron: z.string().nullable(),
  once_at: z.string().nullable(),
  time_zone: z.string(),
  text: z.string(),
  grants: z.string(),
  label: z.string().nullable(),
  next_at: z.number().nullable(),
  created_at: z.number(),
  last_run_at: z.number().nullable(),
  last_outcome: z.string().nullable(),
  failures: z.number().int(),
  paused: z.string().nullable(),
  runs: z.number().int(),
});
export type ScheduleRow = Omit<z.infer<typeof RowSchema>, "grants"> & { grants: string[] };

const GrantsSchema = z.array(z.string());

export type NewSchedule = Pick<
  ScheduleRow,
  "id" | "created_by" | "spec" | "cron" | "once_at" | "time_zone" | "text" | "grants" | "label" | "next_at" | "created_at"
>;

export class ScheduleRows {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS schedules (
      id TEXT PRIMARY KEY,
      created_by TEXT NOT NULL,
      spec TEXT NOT NULL,
      cron TEXT,
      once_at TEXT,
      time_zone TEXT NOT NULL,
      text TEXT NOT NULL,
      grants TEXT NOT NULL,
      label TEXT,
      next_at INTEGER,
      created_at INTEGER NOT NULL,
      last_run_at INTEGER,
      last_outcome TEXT,
      failures INTEGER NOT NULL DEFAULT 0,
      paused TEXT,
      runs INTEGER NOT NULL DEFAULT 0
    )`);
  }

  add(row: NewSchedule): void {
    this.sql.exec(
      "INSERT INTO schedules (id, created_by, spec, cron, once_at, time_zone, text, grants, label, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      row.id,
      row.created_by,
      row.spec,
      row.cron,
      row.once_at,
      row.time_zone,
      row.text,
      JSON.stringify(row.grants),
      row.label,
      row.next_at,
      row.created_at,
    );
  }

  all(): ScheduleRow[] {
    return this.parse(this.sql.exec("SELECT * FROM schedules ORDER BY created_at, id").toArray());
  }

  get(id: string): ScheduleRow | undefined {
    return this.parse(this.sql.exec("SELECT * FROM schedules WHERE id = ?", id).toArray())[0];
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM schedules").one().n;
  }

  /** Unpaused rows due by `at`, oldest due first. */
  due(at: number): ScheduleRow[] {
    return this.parse(
      this.sql.exec("SELECT * FROM schedules WHERE paused IS NULL AND next_at IS NOT NULL AND next_at <= ? ORDER BY next_at, id", at).toArray(),
    );
  }

  /** The earliest next run of an unpaused row. */
  earliest(): number | undefined {
    const row = this.sql.exec<{ at: number | null }>("SELECT MIN(next_at) AS at FROM schedules WHERE paused IS NULL").one();
    return row.at ?? undefined;
  }

  update(id: string, fields: Partial<Pick<ScheduleRow, "next_at" | "last_run_at" | "last_outcome" | "failures" | "paused" | "runs">>): void {
    const keys = Object.keys(fields) as (keyof typeof fields)[];
    if (keys.length === 0) return;
    // Column names come from the typed keys above, never from input.
    this.sql.exec(`UPDATE schedules SET ${keys.map((k) => `${k} = ?`).join(", ")} WHERE id = ?`, ...keys.map((k) => fields[k] ?? null), id);
  }

  remove(id: string): boolean {
    return this.sql.exec("DELETE FROM schedules WHERE id = ?", id).rowsWritten > 0;
  }

  clear(): void {
    this.sql.exec("DELETE FROM schedules");
  }

  private parse(rows: Record<string, SqlStorageValue>[]): ScheduleRow[] {
    const out: ScheduleRow[] = [];
    for (const raw of rows) {
      const row = RowSchema.safeParse(raw);
      if (!row.success) continue;
      let grants: string[] = [];
      try {
        grants = GrantsSchema.parse(JSON.parse(row.data.grants));
      } catch {
        grants = [];
      }
      out.push({ ...row.data, grants });
    }
    return out;
  }
}

export function viewOf(row: ScheduleRow): ScheduleView {
  return {
    id: row.id,
    spec: row.spec,
    timeZone: row.time_zone,
    text: row.text,
    grants: row.grants,
    ...(row.label ? { label: row.label } : {}),
    ...(row.next_at !== null && !row.paused ? { nextAt: row.next_at } : {}),
    ...(row.last_run_at !== null ? { lastRunAt: row.last_run_at } : {}),
    ...(row.last_outcome ? { lastOutcome: row.last_outcome } : {}),
    ...(row.paused ? { paused: row.paused } : {}),
    runs: row.runs,
  };
}
