// Model tokens a user's running turns and sampling answers may still spend: each holds
// its worst case before it starts and gives it back when its real count arrives, so
// turns started together cannot pass the daily budget by more than one turn's worth
// (they would if tokens were only counted afterwards). A holder that never reports (a
// session that crashed mid-turn) lets go when its hold expires.
interface Row extends Record<string, SqlStorageValue> {
  tokens: number;
}

/** Longer than any turn (MAX_STEPS model calls with their tool calls); a hold past it is a lost one. */
export const HOLD_MS = 15 * 60_000;

export class Reservations {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, tokens INTEGER NOT NULL, expires_at INTEGER NOT NULL)`);
  }

  /** Tokens held by others than `except`, unexpired. */
  held(now: number, except?: string): number {
    return this.sql.exec<Row>("SELECT COALESCE(SUM(tokens), 0) AS tokens FROM reservations WHERE expires_at > ? AND id <> ?", now, except ?? "").one().tokens;
  }

  hold(id: string, tokens: number, now: number): void {
    this.sql.exec("DELETE FROM reservations WHERE expires_at <= ?", now);
    this.sql.exec(
      "INSERT INTO reservations (id, tokens, expires_at) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET tokens = excluded.tokens, expires_at = excluded.expires_at",
      id,
      Math.max(0, Math.round(tokens)),
      now + HOLD_MS,
    );
  }

  release(id: string | undefined): void {
    if (id) this.sql.exec("DELETE FROM reservations WHERE id = ?", id);
  }
}
