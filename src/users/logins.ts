// A user's page logins (token mode): each login cookie names a login id, and a
// cookie is honoured only while its id is listed here. Signing out removes one id,
// "sign out everywhere" removes them all, so a copied cookie dies with the login
// it belonged to instead of living out its 7 days. Every cookie request asks, so
// the list is kept in memory after the first read (this object is its only writer).
import { z } from "zod";

/** Logins one user keeps at once; the oldest is signed out past it (a login loop must not grow storage). */
const MAX_LOGINS = 100;
export const LoginIdSchema = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/);

export class LoginStore {
  /** id → expiry (ms epoch), loaded on first use. */
  private active?: Map<string, number>;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS logins (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL)`);
  }

  start(id: string, expiresAt: number, now: number): void {
    LoginIdSchema.parse(id);
    this.sql.exec("DELETE FROM logins WHERE expires_at <= ?", now);
    this.sql.exec("INSERT INTO logins (id, expires_at, created_at) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING", id, expiresAt, now);
    this.sql.exec("DELETE FROM logins WHERE id NOT IN (SELECT id FROM logins ORDER BY created_at DESC LIMIT ?)", MAX_LOGINS);
    this.active = undefined;
  }

  isActive(id: string, now: number): boolean {
    const expiresAt = this.map().get(id);
    return expiresAt !== undefined && expiresAt > now;
  }

  end(id: string): void {
    this.sql.exec("DELETE FROM logins WHERE id = ?", id);
    this.active?.delete(id);
  }

  /** Ends every login; how many there were. */
  endAll(): number {
    const ended = this.sql.exec("DELETE FROM logins RETURNING id").toArray().length;
    this.active = new Map();
    return ended;
  }

  private map(): Map<string, number> {
    this.active ??= new Map(
      this.sql
        .exec<{ id: string; expires_at: number }>("SELECT id, expires_at FROM logins")
        .toArray()
        .map((r) => [r.id, r.expires_at]),
    );
    return this.active;
  }
}
