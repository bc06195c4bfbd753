// UserAccount's RPC for the person's chats: the session list, search over them (fed by
// the sessions), and the links that share them.
import { AccountRules } from "./account-rules";
import type { IndexedMessage, SearchResult } from "./session-search";
import type { ShareCaps, ShareDecision, ShareSummary } from "./share-list";
import type { BucketLimits } from "./token-bucket";
import type { SessionSummary } from "./session-list";
import type { SharedChat } from "./shared-chats";

export class AccountSessions extends AccountRules {
  // ---- the session list (src/users/session-list.ts) ----

  /** A new session claimed; not listed while an erase runs (a socket opened on a new id then: it stays empty, its turns refused). */
  addSession(id: string, now = Date.now()): void {
    if (this.erase.erasing) return;
    this.sessions.add(id, now);
  }

  hasRoomForSession(id: string, max: number): boolean {
    return this.sessions.hasRoom(id, max);
  }

  reserveSession(id: string, max: number, now = Date.now()): boolean {
    return this.sessions.reserve(id, max, now);
  }

  /** A session claimed by its socket (src/session/session-owner.ts): hasRoomForSession, then addSession, in one call. */
  addSessionIfRoom(id: string, max: number, now = Date.now()): boolean {
    if (!this.sessions.hasRoom(id, max)) return false;
    this.addSession(id, now);
    return true;
  }

  /**
   * Marks activity; the first message of a session becomes its title (searchable at once).
   * `generation`: the one the turn was admitted under; a turn that raced an erase does not list its chat again.
   */
  touchSession(id: string, firstMessage: string | undefined, now = Date.now(), generation?: number): void {
    if (!this.erase.current(generation)) return;
    const titled = this.sessions.touch(id, firstMessage, now);
    if (titled) this.search.setTitle(id, titled.title);
  }

  /** A title the user chose; false when the session is not in their list. */
  renameSession(id: string, title: string): boolean {
    const renamed = this.sessions.rename(id, title);
    if (renamed !== undefined) this.search.setTitle(id, renamed);
    return renamed !== undefined;
  }

  pinSession(id: string, pinned: boolean): boolean {
    return this.sessions.pin(id, pinned);
  }

  /** A deleted (or expired) session leaves the list, the search index, and every link that shared it. */
  async removeSession(id: string): Promise<void> {
    this.sessions.remove(id);
    this.taskSlots.releaseSession(id);
    this.scheduleSlots.releaseSession(id);
    this.search.forget(id, true);
    await this.emptyShares(this.shares.takeAll(id));
  }

  listSessions(): SessionSummary[] {
    return this.sessions.list();
  }

  // ---- search over the user's sessions (src/users/session-search.ts), fed by the sessions ----

  /** A listed session's new messages; a session not (or no longer) in the list is not indexed. */
  indexMessages(id: string, messages: IndexedMessage[]): void {
    if (this.erase.erasing || !this.sessions.has(id)) return;
    this.search.addMessages(id, messages);
  }

  /** The session's history was cleared: its messages leave the index, its title stays. */
  unindexMessages(id: string): void {
    this.search.forget(id, false);
  }

  searchSessions(query: string): SearchResult[] {
    return this.search.search(query);
  }

  // ---- shared links (src/users/share-list.ts, src/share/) ----

  /** The title a listed session has (for a shared snapshot); undefined when it is not in the list. */
  sessionTitle(id: string): { title: string | null } | undefined {
    return this.sessions.title(id);
  }

  /**
   * Lists a new link if the user is within the caps and their rate: checked and listed in one
   * call of this object, which runs one at a time, so parallel shares cannot pass a cap.
   */
  addShare(share: ShareSummary, caps: ShareCaps, rate: BucketLimits, now = Date.now()): ShareDecision {
    const refusal = this.shares.refusal(share.sessionId, caps);
    if (refusal) return { ok: false, code: "too_many_shares", message: refusal };
    const spend = this.spend.admit("share", rate, now);
    if (!spend.ok) return spend;
    this.shares.add(share);
    return { ok: true };
  }

  hasShare(id: string): boolean {
    return this.shares.has(id);
  }

  listShares(sessionId?: string): ShareSummary[] {
    return this.shares.list(sessionId);
  }

  /** Revokes one of the user's links: false when it is not theirs. */
  async revokeShare(id: string): Promise<boolean> {
    if (!this.shares.take(id)) return false;
    await this.emptyShares([id]);
    return true;
  }

  // ---- chats other people shared with this person (src/users/shared-chats.ts), written by those chats ----

  /** Not while an erase runs: an invite racing Delete my data does not list the chat again. */
  putSharedChat(chat: SharedChat): void {
    if (this.erase.erasing) return;
    this.sharedChats.put(chat);
  }

  removeSharedChat(sessionId: string): void {
    this.sharedChats.remove(sessionId);
  }

  listSharedChats(): SharedChat[] {
    return this.sharedChats.list();
  }
}
