// At most PUSH_PER_HOUR pushes per person in any hour (docs/notifications.md): a runaway
// schedule, a server asking in a loop or a busy shared chat cannot turn a phone into a pager.
// A sliding hour, kept as the send times of the pushes in it (at most the cap's rows); a push
// past the cap is dropped (the chat still shows what it was about) and counted here, for the
// person's device list and the operator's /admin. Test pushes (the person's own Test) are not
// counted: the caller does not ask.
const HOUR_MS = 60 * 60_000;

export class PushCap {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS push_sent (at INTEGER NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS push_dropped (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL, last_at INTEGER NOT NULL)");
  }

  /** Takes a place in this hour's pushes; false (and counted as dropped) when the hour is full. */
  take(perHour: number, now: number): boolean {
    this.sql.exec("DELETE FROM push_sent WHERE at <= ?", now - HOUR_MS);
    const sent = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM push_sent").one().n;
    if (sent >= perHour) {
      this.sql.exec(
        "INSERT INTO push_dropped (id, count, last_at) VALUES (1, 1, ?) ON CONFLICT(id) DO UPDATE SET count = count + 1, last_at = excluded.last_at",
        now,
      );
      return false;
    }
    this.sql.exec("INSERT INTO push_sent (at) VALUES (?)", now);
    return true;
  }

  /** Pushes dropped by the cap so far, and when the last one was. */
  dropped(): { count: number; lastAt: number | null } {
    const row = this.sql.exec<{ count: number; last_at: number }>("SELECT count, last_at FROM push_dropped WHERE id = 1").toArray()[0];
    return row ? { count: row.count, lastAt: row.last_at } : { count: 0, lastAt: null };
  }

  clear(): void {
    this.sql.exec("DELETE FROM push_sent");
    this.sql.exec("DELETE FROM push_dropped");
  }
}
