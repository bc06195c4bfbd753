// What each of the user's MCP servers offered when one of their sessions last connected
// it (tools as the model sees them, the server's guide), one row per server under the
// key of the entry it was found with (src/session/mcp/discovery-cache.ts makes both). A new
// session of the same user starts from these rows: its first model call goes out at once
// while its connections open, instead of waiting for every server's initialize and
// tools/list. Rows are the session's JSON text, kept as written; the session checks them
// (zod) when it reads them. They are per user, never shared across users: a server may
// show each user other tools (their own OAuth scopes, their own child).
export interface OwnerDiscoveryRow {
  server: string;
  /** The server entry's key (serverKey): a row found with another entry does not match. */
  key: string;
  /** The session's row as JSON text. */
  row: string;
}

/** A row past this is not kept (SQLite's row limit is 2 MB; a server that large is discovered each time). */
const MAX_ROW_CHARS = 1_500_000;
/** Servers kept per user, newest first: older rows go (a user's servers are far fewer). */
const MAX_ROWS = 200;

export class OwnerDiscovery {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS discovery (server TEXT PRIMARY KEY, key TEXT NOT NULL, row TEXT NOT NULL, updated_at INTEGER NOT NULL)");
  }

  /** The rows of `wanted` servers whose key still matches. */
  read(wanted: { server: string; key: string }[]): OwnerDiscoveryRow[] {
    const out: OwnerDiscoveryRow[] = [];
    for (const { server, key } of wanted) {
      const row = this.sql.exec<{ row: string }>("SELECT row FROM discovery WHERE server = ? AND key = ?", server, key).toArray()[0];
      if (row) out.push({ server, key, row: row.row });
    }
    return out;
  }

  /** Keeps each row (replacing the server's older one); a row too large is left out. */
  keep(rows: OwnerDiscoveryRow[], now = Date.now()): void {
    for (const { server, key, row } of rows) {
      if (row.length > MAX_ROW_CHARS) {
        this.sql.exec("DELETE FROM discovery WHERE server = ?", server);
        continue;
      }
      this.sql.exec(
        "INSERT INTO discovery (server, key, row, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(server) DO UPDATE SET key = excluded.key, row = excluded.row, updated_at = excluded.updated_at",
        server,
        key,
        row,
        now,
      );
    }
    this.sql.exec("DELETE FROM discovery WHERE server NOT IN (SELECT server FROM discovery ORDER BY updated_at DESC LIMIT ?)", MAX_ROWS);
  }

  clear(): void {
    this.sql.exec("DELETE FROM discovery");
  }
}
