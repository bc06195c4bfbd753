// The links a user shared (src/share/): which session each shows, under what title, since
// when. This list, in the user's own account object, is what says a link still counts:
// revoking takes the line out here first, so a link is dead at once even if emptying its
// snapshot object fails, and only the owner (whose account holds the line) can revoke it.
import { z } from "zod";
import type { SpendDecision } from "./spend-ledger";

export const ShareSummarySchema = z.object({ id: z.string(), sessionId: z.string(), title: z.string().nullable(), createdAt: z.number() });
export type ShareSummary = z.infer<typeof ShareSummarySchema>;

/** Live links one chat and one user may have (SHARES_PER_SESSION, SHARES_PER_USER). */
export interface ShareCaps {
  perSession: number;
  perUser: number;
}

/** A new link listed, or why not: a cap (409 too_many_shares) or the user's rate (429 rate_limited, with when to retry). */
export type ShareDecision = { ok: true } | { ok: false; code: "too_many_shares"; message: string } | Exclude<SpendDecision, { ok: true }>;

export class ShareList {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS shares (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, title TEXT, created_at INTEGER NOT NULL)");
  }

  /** Why one more link of `sessionId` would pass a cap; undefined when it fits. */
  refusal(sessionId: string, caps: ShareCaps): string | undefined {
    const count = (where: string, ...args: string[]) => this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM shares${where}`, ...args).one().n;
    if (count(" WHERE session_id = ?", sessionId) >= caps.perSession)
      return `this chat has ${caps.perSession} shared links already, the most allowed: revoke one first`;
    if (count("") >= caps.perUser) return `you have ${caps.perUser} shared links already, the most allowed: revoke one first`;
    return undefined;
  }

  add(share: ShareSummary): void {
    this.sql.exec("INSERT INTO shares (id, session_id, title, created_at) VALUES (?, ?, ?, ?)", share.id, share.sessionId, share.title, share.createdAt);
  }

  has(id: string): boolean {
    return this.sql.exec("SELECT 1 FROM shares WHERE id = ?", id).toArray().length > 0;
  }

  /** Newest first; one session's only when `sessionId` is given. */
  list(sessionId?: string): ShareSummary[] {
    const rows = this.sql
      .exec<{ id: string; session_id: string; title: string | null; created_at: number }>(
        `SELECT id, session_id, title, created_at FROM shares${sessionId === undefined ? "" : " WHERE session_id = ?"} ORDER BY created_at DESC`,
        ...(sessionId === undefined ? [] : [sessionId]),
      )
      .toArray();
    return rows.map((r) => ({ id: r.id, sessionId: r.session_id, title: r.title, createdAt: r.created_at }));
  }

  /** Takes one link out of the list; false when it is not this user's. */
  take(id: string): boolean {
    return this.sql.exec("DELETE FROM shares WHERE id = ? RETURNING id", id).toArray().length > 0;
  }

  /** Takes every link of a session (or, without one, of the user) out of the list: their ids, to empty. */
  takeAll(sessionId?: string): string[] {
    return this.sql
      .exec<{ id: string }>(
        `DELETE FROM shares${sessionId === undefined ? "" : " WHERE session_id = ?"} RETURNING id`,
        ...(sessionId === undefined ? [] : [sessionId]),
      )
      .toArray()
      .map((r) => r.id);
  }
}
