// The people a chat's owner invited (docs/people.md), in the session's SQLite: one row per
// invitee, keyed by their page-visible key (src/shared/person-key.ts). A row is bound to a
// user id at once in token mode, or in Access mode on the first admission whose email
// matches (after that only the id counts: an email given to someone else later does not
// inherit the seat). Reads come from an in-memory copy rebuilt on every change, so the
// frame gate's lookup on each frame costs no query.
import { personKey } from "../../shared/person-key";
import type { MemberRole } from "./roles";

/** The close code and reason of a removed person's sockets (docs/websocket-protocol.md). */
export const REMOVED_CLOSE = 4403;
export const REMOVED_REASON = "removed from this chat";

export interface Member {
  key: string;
  name: string;
  userId?: string;
  role: MemberRole;
  invitedAt: number;
  joinedAt?: number;
}

type Row = { key: string; name: string; user_id: string | null; role: MemberRole; invited_at: number; joined_at: number | null };

export type InviteOutcome = { ok: true; member: Member; created: boolean } | { ok: false; code: "too_many_invites"; message: string };

export class Members {
  private cache?: Member[];

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS members (
      key TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      user_id TEXT UNIQUE,
      role TEXT NOT NULL,
      invited_at INTEGER NOT NULL,
      joined_at INTEGER
    )`);
  }

  list(): Member[] {
    this.cache ??= this.sql
      .exec<Row>("SELECT key, name, user_id, role, invited_at, joined_at FROM members ORDER BY invited_at, key")
      .toArray()
      .map((r) => ({
        key: r.key,
        name: r.name,
        role: r.role,
        invitedAt: r.invited_at,
        ...(r.user_id === null ? {} : { userId: r.user_id }),
        ...(r.joined_at === null ? {} : { joinedAt: r.joined_at }),
      }));
    return this.cache;
  }

  byUser(userId: string): Member | undefined {
    return this.list().find((m) => m.userId === userId);
  }

  byKey(key: string): Member | undefined {
    return this.list().find((m) => m.key === key);
  }

  /** Invites `name` (already normalised) as `role`, or changes the role of an earlier invite of that name. */
  async invite(name: string, userId: string | undefined, role: MemberRole, cap: number, now = Date.now()): Promise<InviteOutcome> {
    const existing = this.list().find((m) => m.name === name || (userId !== undefined && m.userId === userId));
    if (existing) {
      this.setRole(existing.key, role);
      return { ok: true, member: { ...existing, role }, created: false };
    }
    if (this.list().length >= cap)
      return { ok: false, code: "too_many_invites", message: `this chat has ${cap} people invited already (INVITES_PER_CHAT): remove one to make room` };
    // Unbound (Access mode, never signed in): a key of the name until the first admission binds the id.
    const key = await personKey(userId ?? `invite:${name}`);
    this.sql.exec("INSERT INTO members (key, name, user_id, role, invited_at) VALUES (?, ?, ?, ?, ?)", key, name, userId ?? null, role, now);
    this.cache = undefined;
    return { ok: true, member: this.byKey(key) as Member, created: true };
  }

  setRole(key: string, role: MemberRole): Member | undefined {
    if (!this.byKey(key)) return undefined;
    this.sql.exec("UPDATE members SET role = ? WHERE key = ?", role, key);
    this.cache = undefined;
    return this.byKey(key);
  }

  remove(key: string): Member | undefined {
    const member = this.byKey(key);
    if (!member) return undefined;
    this.sql.exec("DELETE FROM members WHERE key = ?", key);
    this.cache = undefined;
    return member;
  }

  /**
   * The member `userId` is, binding an unbound invite of `name` (Access mode: their email) on
   * their first admission; their first admission also marks them joined. Undefined: not invited.
   */
  async admit(userId: string, name: string | undefined, now = Date.now()): Promise<{ member: Member; first: boolean } | undefined> {
    let member = this.byUser(userId);
    if (!member && name !== undefined) {
      const invite = this.list().find((m) => m.userId === undefined && m.name === name.trim().toLowerCase());
      if (invite) {
        const key = await personKey(userId);
        this.sql.exec("UPDATE members SET user_id = ?, key = ? WHERE key = ?", userId, key, invite.key);
        this.cache = undefined;
        member = this.byUser(userId);
      }
    }
    if (!member) return undefined;
    if (member.joinedAt !== undefined) return { member, first: false };
    this.sql.exec("UPDATE members SET joined_at = ? WHERE key = ?", now, member.key);
    this.cache = undefined;
    return { member: { ...member, joinedAt: now }, first: true };
  }

  clear(): Member[] {
    const all = this.list();
    this.sql.exec("DELETE FROM members");
    this.cache = undefined;
    return all;
  }
}
