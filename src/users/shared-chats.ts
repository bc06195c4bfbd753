// The chats other people shared with this person (docs/people.md: "Shared with me"), in
// their account: written by the chat's session when they are invited (or first come, in
// Access mode), changed with their role, removed when they are removed or the chat goes.
// Membership itself is the chat's (its members table); this list is only for finding it.
import { z } from "zod";

export const SharedChatSchema = z.object({
  sessionId: z.string(),
  ownerName: z.string(),
  role: z.enum(["viewer", "participant", "approver"]),
  addedAt: z.number(),
});
export type SharedChat = z.infer<typeof SharedChatSchema>;

/** Beyond this many the oldest are not listed (the chats stay reachable by their link). */
const MAX_LISTED = 500;

type Row = { session_id: string; owner_name: string; role: SharedChat["role"]; added_at: number };

export class SharedChats {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS shared_chats (
      session_id TEXT PRIMARY KEY,
      owner_name TEXT NOT NULL,
      role TEXT NOT NULL,
      added_at INTEGER NOT NULL
    )`);
  }

  /** Added, or its role and owner's name brought up to date (keeping when it was first shared). */
  put(chat: SharedChat): void {
    this.sql.exec(
      `INSERT INTO shared_chats (session_id, owner_name, role, added_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET owner_name = excluded.owner_name, role = excluded.role`,
      chat.sessionId,
      chat.ownerName,
      chat.role,
      chat.addedAt,
    );
  }

  remove(sessionId: string): void {
    this.sql.exec("DELETE FROM shared_chats WHERE session_id = ?", sessionId);
  }

  list(): SharedChat[] {
    return this.sql
      .exec<Row>("SELECT session_id, owner_name, role, added_at FROM shared_chats ORDER BY added_at DESC LIMIT ?", MAX_LISTED)
      .toArray()
      .map((r) => ({ sessionId: r.session_id, ownerName: r.owner_name, role: r.role, addedAt: r.added_at }));
  }

  clear(): void {
    this.sql.exec("DELETE FROM shared_chats");
  }
}
