// The user's list of chat sessions, in their account (src/users/UserAccount.ts): each
// session's title (its first message, or one the user chose), last activity and pin. The
// list is what makes a session the user's to see, search, share and delete; the cap on
// its length (MAX_SESSIONS_PER_USER) is checked in the same step as adding to it.
import { z } from "zod";

export const SessionSummarySchema = z.object({ id: z.string(), title: z.string().nullable(), lastActivity: z.number(), pinned: z.boolean() });
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

const TITLE_CHARS = 80;

export class SessionList {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT, created_at INTEGER NOT NULL, last_activity INTEGER NOT NULL)");
    // Pinned sessions list first (added after the table: older accounts gain the column here).
    if (
      !sql
        .exec<{ name: string }>("PRAGMA table_info(sessions)")
        .toArray()
        .some((c) => c.name === "pinned")
    )
      sql.exec("ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0");
  }

  // A runaway client creating sessions is stopped by the cap (reserve), not by dropping the
  // oldest from the list: those would live on, unlisted and undeletable.
  add(id: string, now: number): void {
    this.sql.exec("INSERT INTO sessions (id, title, created_at, last_activity) VALUES (?, NULL, ?, ?) ON CONFLICT(id) DO NOTHING", id, now, now);
  }

  /** Whether `id` is listed already or one more session fits under `max`. */
  hasRoom(id: string, max: number): boolean {
    const row = this.sql.exec<{ n: number; listed: number }>("SELECT COUNT(*) AS n, COUNT(CASE WHEN id = ? THEN 1 END) AS listed FROM sessions", id).one();
    return row.listed > 0 || row.n < max;
  }

  /** Lists a new session when it fits under `max`, in one step (concurrent creations cannot pass the cap together). */
  reserve(id: string, max: number, now: number): boolean {
    if (!this.hasRoom(id, max)) return false;
    this.add(id, now);
    return true;
  }

  /** Marks activity; the first message of a session becomes its title. The title, when this set it. */
  touch(id: string, firstMessage: string | undefined, now: number): { title: string | null } | undefined {
    const title = firstMessage?.replace(/\s+/g, " ").trim().slice(0, TITLE_CHARS) || null;
    this.add(id, now);
    const titled = this.sql
      .exec<{ title: string | null }>(
        "UPDATE sessions SET last_activity = ?, title = COALESCE(title, ?) WHERE id = ? AND title IS NULL RETURNING title",
        now,
        title,
        id,
      )
      .toArray()[0];
    if (!titled) this.sql.exec("UPDATE sessions SET last_activity = ? WHERE id = ?", now, id);
    return titled;
  }

  /** A title the user chose, as kept; undefined when the session is not in the list. */
  rename(id: string, title: string): string | undefined {
    return this.sql.exec<{ title: string }>("UPDATE sessions SET title = ? WHERE id = ? RETURNING title", title.slice(0, TITLE_CHARS), id).toArray()[0]?.title;
  }

  /** Pins or unpins a listed session; false when it is not in the list. */
  pin(id: string, pinned: boolean): boolean {
    return this.sql.exec("UPDATE sessions SET pinned = ? WHERE id = ? RETURNING id", pinned ? 1 : 0, id).toArray().length > 0;
  }

  has(id: string): boolean {
    return this.sql.exec("SELECT 1 FROM sessions WHERE id = ?", id).toArray().length > 0;
  }

  /** The title a listed session has; undefined when it is not in the list. */
  title(id: string): { title: string | null } | undefined {
    return this.sql.exec<{ title: string | null }>("SELECT title FROM sessions WHERE id = ?", id).toArray()[0];
  }

  remove(id: string): void {
    this.sql.exec("DELETE FROM sessions WHERE id = ?", id);
  }

  /** Pinned first, then the most recently active. */
  list(): SessionSummary[] {
    return this.sql
      .exec<{ id: string; title: string | null; last_activity: number; pinned: number }>(
        "SELECT id, title, last_activity, pinned FROM sessions ORDER BY pinned DESC, last_activity DESC, created_at DESC",
      )
      .toArray()
      .map((row) => SessionSummarySchema.parse({ id: row.id, title: row.title, lastActivity: row.last_activity, pinned: row.pinned === 1 }));
  }

  /** How many sessions, and the newest activity (the operator's line). */
  summary(): { sessions: number; lastActivity: number | null } {
    const row = this.sql.exec<{ n: number; last: number | null }>("SELECT COUNT(*) AS n, MAX(last_activity) AS last FROM sessions").one();
    return { sessions: row.n, lastActivity: row.last };
  }
}
