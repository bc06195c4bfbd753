// A table of the account whose rows each hold one entry as JSON under a key (the user's
// runtime servers, their own model providers): read in key order, each row checked
// against its schema, a row an older version wrote that no longer reads left out rather
// than breaking the list.
import type { z } from "zod";

export class EntryTable<S extends z.ZodType> {
  /** `table` and `key` are names from our code, never from a request. */
  constructor(
    private readonly sql: SqlStorage,
    private readonly table: string,
    private readonly key: string,
    private readonly schema: S,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS ${table} (${key} TEXT PRIMARY KEY, entry TEXT NOT NULL, updated_at INTEGER NOT NULL)`);
  }

  list(): z.infer<S>[] {
    return this.sql
      .exec<{ entry: string }>(`SELECT entry FROM ${this.table} ORDER BY ${this.key}`)
      .toArray()
      .flatMap((row) => {
        const parsed = this.schema.safeParse(JSON.parse(row.entry));
        return parsed.success ? [parsed.data] : [];
      });
  }

  /** Adds or replaces the entry under `key`. */
  put(key: string, entry: z.infer<S>, now = Date.now()): void {
    this.sql.exec(
      `INSERT INTO ${this.table} (${this.key}, entry, updated_at) VALUES (?, ?, ?) ON CONFLICT(${this.key}) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at`,
      key,
      JSON.stringify(entry),
      now,
    );
  }

  delete(key: string): boolean {
    return this.sql.exec(`DELETE FROM ${this.table} WHERE ${this.key} = ? RETURNING ${this.key}`, key).toArray().length > 0;
  }

  clear(): void {
    this.sql.exec(`DELETE FROM ${this.table}`);
  }
}
