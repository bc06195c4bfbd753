// UserAccount's RPC for the person's audit trail (src/users/audit-log.ts): rows appended by
// their chats, read back by the page and the export, pruned on the account's alarm after
// AUDIT_RETENTION_DAYS (the newest append says how many days), gone with Delete my data.
import type { AuditRecord } from "../audit/record";
import { AccountSessions } from "./account-sessions";
import { AuditLog, type AuditExportQuery, type AuditPage, type AuditPageQuery } from "./audit-log";

const DAY_MS = 86_400_000;
/** The chat id a connected app's calls through /mcp are kept under (src/gateway/call-record.ts). */
const APP_CHAT = "app:";
/** The alarm never fires sooner than this after the last: a burst of old rows is pruned in one go. */
const MIN_ALARM_GAP_MS = 3_600_000;

export class AccountAudit extends AccountSessions {
  private auditStore?: AuditLog;
  /** Made on first use (its tables too). */
  protected get auditLog(): AuditLog {
    this.auditStore ??= new AuditLog(this.sql);
    return this.auditStore;
  }

  /**
   * Rows from a chat's outbox (each checked against the schema; one already kept is ignored). Dropped
   * while an erase runs (the chat deletes them all the same). Arms the pruning alarm if none is set.
   */
  async appendAudit(records: unknown[], retentionDays: number, now = Date.now()): Promise<number> {
    if (this.erase.erasing || retentionDays <= 0) return 0;
    const log = this.auditLog;
    log.retentionDays = retentionDays;
    const added = log.append(records);
    if (added > 0 && (await this.ctx.storage.getAlarm()) === null) await this.armAuditAlarm(now);
    return added;
  }

  /** Newest first, with the titles of the chats on the page that are still listed. */
  auditPage(query: AuditPageQuery): AuditPage & { titles: Record<string, string> } {
    const page = this.auditLog.page(query);
    return { ...page, titles: this.titlesOf(page.records) };
  }

  /** One page of an export (oldest first), with the chats' titles. */
  auditExport(query: AuditExportQuery): { records: AuditRecord[]; last?: number; titles: Record<string, string> } {
    const page = this.auditLog.exportPage(query);
    return { ...page, titles: this.titlesOf(page.records) };
  }

  /** The account's alarm: prunes rows past the retention, then waits for the oldest left to expire. */
  override async alarm(): Promise<void> {
    await this.pruneAudit();
  }

  protected async pruneAudit(now = Date.now()): Promise<void> {
    const log = this.auditLog;
    const days = log.retentionDays;
    if (days !== undefined && days > 0) log.prune(now - days * DAY_MS);
    await this.armAuditAlarm(now);
  }

  /** Forgets the whole trail (Delete my data). */
  protected forgetAudit(): void {
    this.auditLog.clear();
  }

  private async armAuditAlarm(now: number): Promise<void> {
    const log = this.auditLog;
    const days = log.retentionDays;
    const oldest = log.oldest();
    if (!days || oldest === undefined) return;
    await this.ctx.storage.setAlarm(Math.max(oldest + days * DAY_MS, now + MIN_ALARM_GAP_MS));
  }

  private titlesOf(records: AuditRecord[]): Record<string, string> {
    const titles: Record<string, string> = {};
    for (const record of records) {
      const chat = record.chat;
      if (chat in titles) continue;
      const title = chat.startsWith(APP_CHAT) ? this.appTitle(chat.slice(APP_CHAT.length), record) : this.sessions.title(chat)?.title;
      if (title) titles[chat] = title;
    }
    return titles;
  }

  /**
   * A `/mcp` call's "chat" is the app (`app:<appId>`): named by the app's name as the person's
   * Connected apps list has it now, or as the row recorded it once the app is gone. The prefix
   * says it is an app: the name is what the app registered itself as, and must not pass for a chat's title.
   */
  private appTitle(appId: string, record: AuditRecord): string | undefined {
    const name = this.apps.get(appId)?.clientName ?? record.askedBy.client?.name;
    return name ? `Connected app: ${name}` : undefined;
  }
}
