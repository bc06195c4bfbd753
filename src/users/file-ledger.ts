// The files a user attached, in their account's SQLite: one row per file, so the quota
// is checked and the file listed in one step (the account is single-threaded: two
// uploads at once cannot both pass the quota), and a session's or the whole account's
// files can be found to delete their bytes (src/files/store.ts).
import { FileRecordSchema, type FileRecord } from "../files/record";

export type FileReservation = { ok: true; used: number } | { ok: false; used: number };

type Row = { id: string; session: string; name: string; mime_type: string; kind: string; size: number; created_at: number };

export class FileLedger {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS files (
      id TEXT PRIMARY KEY, session TEXT NOT NULL, name TEXT NOT NULL, mime_type TEXT NOT NULL,
      kind TEXT NOT NULL, size INTEGER NOT NULL, created_at INTEGER NOT NULL
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS files_by_session ON files (session)");
  }

  /** Bytes of all the user's files. */
  used(): number {
    return this.sql.exec<{ n: number | null }>("SELECT SUM(size) AS n FROM files").one().n ?? 0;
  }

  /** Lists the file when it fits under `quota` bytes with the others. */
  reserve(file: FileRecord, quota: number): FileReservation {
    const used = this.used();
    if (used + file.size > quota) return { ok: false, used };
    this.sql.exec(
      "INSERT INTO files (id, session, name, mime_type, kind, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      file.id,
      file.session,
      file.name,
      file.mimeType,
      file.kind,
      file.size,
      file.createdAt,
    );
    return { ok: true, used: used + file.size };
  }

  get(id: string): FileRecord | undefined {
    const row = this.sql.exec<Row>("SELECT * FROM files WHERE id = ?", id).toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  /** Forgets one file; its record (for the caller to delete the bytes), if it was there. */
  remove(id: string): FileRecord | undefined {
    const row = this.sql.exec<Row>("DELETE FROM files WHERE id = ? RETURNING *", id).toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  /** Forgets the files of one session (or of every session); their ids, to delete the bytes. */
  take(session?: string): string[] {
    const rows =
      session === undefined
        ? this.sql.exec<{ id: string }>("DELETE FROM files RETURNING id")
        : this.sql.exec<{ id: string }>("DELETE FROM files WHERE session = ? RETURNING id", session);
    return rows.toArray().map((r) => r.id);
  }
}

function toRecord(row: Row): FileRecord {
  return FileRecordSchema.parse({
    id: row.id,
    session: row.session,
    name: row.name,
    mimeType: row.mime_type,
    kind: row.kind,
    size: row.size,
    createdAt: row.created_at,
  });
}
