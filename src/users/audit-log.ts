// A person's audit trail (src/audit/record.ts), in their own account object: it outlives a
// deleted chat and goes with the account (Delete my data). Rows come from their chats'
// outboxes (src/session/audit-sink.ts); a re-sent row is ignored by its id, so a flush that
// failed halfway can simply be sent again. Old rows are pruned on the account's alarm.
import { type AuditRecord, AuditRecordSchema } from "../audit/record";

/** A page of the trail, newest first; `next`: the cursor for the page after it, if there is one. */
export interface AuditPage {
  records: AuditRecord[];
  next?: string;
}

export interface AuditPageQuery {
  session?: string;
  /** A `next` cursor from the page before. */
  before?: string;
  limit: number;
}

export interface AuditExportQuery {
  session?: string;
  since?: number;
  until?: number;
  /** The `seq` of the last row of the page before (0 for the first page). */
  after: number;
  limit: number;
}

type Row = { seq: number; at: number; record: string };

/** A cursor is `<at>.<seq>` of the last row a page showed. */
function parseCursor(cursor: string | undefined): { at: number; seq: number } | undefined {
  const match = cursor ? /^(\d{1,15})\.(\d{1,15})$/.exec(cursor) : null;
  return match ? { at: Number(match[1]), seq: Number(match[2]) } : undefined;
}

export class AuditLog {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS audit (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, at INTEGER NOT NULL, session TEXT NOT NULL, record TEXT NOT NULL)`);
    sql.exec("CREATE INDEX IF NOT EXISTS audit_at ON audit (at)");
    sql.exec("CREATE INDEX IF NOT EXISTS audit_session_at ON audit (session, at)");
    sql.exec("CREATE TABLE IF NOT EXISTS audit_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
  }

  /** AUDIT_RETENTION_DAYS as the newest append said it (the alarm prunes by it); undefined before any. */
  get retentionDays(): number | undefined {
    return this.sql.exec<{ value: number }>("SELECT value FROM audit_meta WHERE key = 'retention_days'").toArray()[0]?.value;
  }

  set retentionDays(days: number) {
    this.sql.exec("INSERT OR REPLACE INTO audit_meta (key, value) VALUES ('retention_days', ?)", days);
  }

  /** Keeps the records that parse (a session's rows, checked again here); those already kept are ignored. How many were new. */
  append(records: readonly unknown[]): number {
    let added = 0;
    for (const candidate of records) {
      const parsed = AuditRecordSchema.safeParse(candidate);
      if (!parsed.success) continue;
      const r = parsed.data;
      added +=
        this.sql.exec("INSERT OR IGNORE INTO audit (id, at, session, record) VALUES (?, ?, ?, ?)", r.id, r.at, r.chat, JSON.stringify(r)).rowsWritten > 0
          ? 1
          : 0;
    }
    return added;
  }

  /** Newest first, for the page's Activity view. */
  page(query: AuditPageQuery): AuditPage {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (query.session !== undefined) {
      where.push("session = ?");
      args.push(query.session);
    }
    const cursor = parseCursor(query.before);
    if (cursor) {
      where.push("(at < ? OR (at = ? AND seq < ?))");
      args.push(cursor.at, cursor.at, cursor.seq);
    }
    const rows = this.select(where, args, "at DESC, seq DESC", query.limit + 1);
    const shown = rows.slice(0, query.limit);
    const last = shown.at(-1);
    return { records: shown.map((r) => JSON.parse(r.record) as AuditRecord), ...(rows.length > query.limit && last ? { next: `${last.at}.${last.seq}` } : {}) };
  }

  /** One page of an export, oldest first by the order rows were kept; `last`: the seq to continue after. */
  exportPage(query: AuditExportQuery): { records: AuditRecord[]; last?: number } {
    const where = ["seq > ?"];
    const args: (string | number)[] = [query.after];
    if (query.session !== undefined) {
      where.push("session = ?");
      args.push(query.session);
    }
    if (query.since !== undefined) {
      where.push("at >= ?");
      args.push(query.since);
    }
    if (query.until !== undefined) {
      where.push("at < ?");
      args.push(query.until);
    }
    const rows = this.select(where, args, "seq ASC", query.limit);
    return { records: rows.map((r) => JSON.parse(r.record) as AuditRecord), ...(rows.length === query.limit ? { last: rows.at(-1)?.seq } : {}) };
  }

  /** Deletes rows older than `cutoff`; how many. */
  prune(cutoff: number): number {
    return this.sql.exec("DELETE FROM audit WHERE at < ?", cutoff).rowsWritten;
  }

  /** When the oldest row was made, if any. */
  oldest(): number | undefined {
    return this.sql.exec<{ at: number | null }>("SELECT min(at) AS at FROM audit").one().at ?? undefined;
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM audit").one().n;
  }

  clear(): void {
    this.sql.exec("DELETE FROM audit");
    this.sql.exec("DELETE FROM audit_meta");
  }

  private select(where: string[], args: (string | number)[], order: string, limit: number): Row[] {
    const clause = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
    return this.sql.exec<Row>(`SELECT seq, at, record FROM audit${clause} ORDER BY ${order} LIMIT ?`, ...args, limit).toArray();
  }
}
