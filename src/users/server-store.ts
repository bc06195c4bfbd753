// The MCP servers a user added at runtime (My servers), kept in their account
// (src/users/UserAccount.ts) as the entries user-servers.ts checks, with a version that
// changes with any of them: sessions ask for it at every turn and read the list only when
// it changed, so the version is kept in memory (the account is the only writer).
import { UserServerInputSchema, type StoredUserServer } from "./user-servers";
import { readEntries } from "./entry-table";

export class RuntimeServerStore {
  private versionCache?: string;

  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS servers (name TEXT PRIMARY KEY, entry TEXT NOT NULL, updated_at INTEGER NOT NULL)");
  }

  list(): StoredUserServer[] {
    return readEntries(this.sql, "SELECT entry FROM servers ORDER BY name", UserServerInputSchema);
  }

  get(name: string): StoredUserServer | undefined {
    return this.list().find((s) => s.name === name);
  }

  /** Adds (`create`) or replaces a server; names are unique per user, whatever their case. */
  put(server: StoredUserServer, create: boolean): { ok: true } | { ok: false; code: "duplicate_name" | "not_found" } {
    const existing = this.list().find((s) => s.name.toLowerCase() === server.name.toLowerCase());
    if (create && existing) return { ok: false, code: "duplicate_name" };
    if (!create && existing?.name !== server.name) return { ok: false, code: "not_found" };
    this.sql.exec(
      "INSERT INTO servers (name, entry, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at",
      server.name,
      JSON.stringify(server),
      Date.now(),
    );
    this.versionCache = undefined;
    return { ok: true };
  }

  delete(name: string): boolean {
    this.versionCache = undefined;
    return this.sql.exec("DELETE FROM servers WHERE name = ? RETURNING name", name).toArray().length > 0;
  }

  clear(): void {
    this.sql.exec("DELETE FROM servers");
    this.versionCache = undefined;
  }

  /** Changes whenever the list or an entry changes: sessions compare it to reconcile. */
  version(): string {
    if (this.versionCache !== undefined) return this.versionCache;
    const row = this.sql
      .exec<{ n: number; at: number | null; names: string | null }>(
        "SELECT COUNT(*) AS n, MAX(updated_at) AS at, GROUP_CONCAT(name) AS names FROM (SELECT name, updated_at FROM servers ORDER BY name)",
      )
      .one();
    this.versionCache = `${row.n}:${row.at ?? 0}:${row.names ?? ""}`;
    return this.versionCache;
  }
}
