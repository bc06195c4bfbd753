// The MCP servers a user added at runtime (My servers), kept in their account
// (src/users/UserAccount.ts) as the entries user-servers.ts checks, with a version that
// changes with any of them: sessions ask for it at every turn and read the list only when
// it changed, so the version is kept in memory (the account is the only writer).
import { UserServerInputSchema, type StoredUserServer } from "./user-servers";
import { EntryTable } from "./entry-table";

export class RuntimeServerStore {
  private readonly table: EntryTable<typeof UserServerInputSchema>;
  private versionCache?: string;

  constructor(private readonly sql: SqlStorage) {
    this.table = new EntryTable(sql, "servers", "name", UserServerInputSchema);
  }

  list(): StoredUserServer[] {
    return this.table.list();
  }

  get(name: string): StoredUserServer | undefined {
    return this.list().find((s) => s.name === name);
  }

  /** Adds (`create`) or replaces a server; names are unique per user, whatever their case. */
  put(server: StoredUserServer, create: boolean): { ok: true } | { ok: false; code: "duplicate_name" | "not_found" } {
    const existing = this.list().find((s) => s.name.toLowerCase() === server.name.toLowerCase());
    if (create && existing) return { ok: false, code: "duplicate_name" };
    if (!create && existing?.name !== server.name) return { ok: false, code: "not_found" };
    this.table.put(server.name, server);
    this.versionCache = undefined;
    return { ok: true };
  }

  delete(name: string): boolean {
    this.versionCache = undefined;
    return this.table.delete(name);
  }

  clear(): void {
    this.table.clear();
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
