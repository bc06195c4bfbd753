// A person's argument rules for all their chats ("write_file when path is under notes/"
// everywhere, their /mcp clients too), kept in their account with a version that changes
// with any of them: a chat asks with every turn's admission and reads the list only when it
// changed (src/approval/owner-rules.ts). Made and checked in the chat that asked (the rule
// must match the call it answers); here they are only kept, capped and listed.
import { ArgumentRuleSchema, type ArgumentRule, type RulesSnapshot } from "../shared/argument-rule";
import { EntryTable } from "./entry-table";

/** RULES_PER_USER: each of the person's calls reads them; more than this is more than anyone reads back. */
export const RULES_PER_USER = 200;

export class AccountRuleStore {
  private readonly table: EntryTable<typeof ArgumentRuleSchema>;
  private versionCache?: string;

  constructor(private readonly sql: SqlStorage) {
    this.table = new EntryTable(sql, "argument_rules", "id", ArgumentRuleSchema);
    // One row: a counter bumped by every change (never reset, so a chat's known version never comes back).
    sql.exec("CREATE TABLE IF NOT EXISTS argument_rules_version (one INTEGER PRIMARY KEY CHECK (one = 1), version INTEGER NOT NULL)");
  }

  /** Oldest first, as they were made. */
  list(): ArgumentRule[] {
    return this.table.list().sort((a, b) => a.createdAt - b.createdAt);
  }

  /** False when the person has RULES_PER_USER rules already. */
  add(rule: ArgumentRule): boolean {
    const count = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM argument_rules").one().n;
    if (count >= RULES_PER_USER) return false;
    this.table.put(rule.id, { ...rule, scope: "all" });
    this.bump();
    return true;
  }

  delete(id: string): boolean {
    const deleted = this.table.delete(id);
    if (deleted) this.bump();
    return deleted;
  }

  clear(): void {
    this.table.clear();
    this.bump();
  }

  version(): string {
    this.versionCache ??= String(this.sql.exec<{ version: number }>("SELECT version FROM argument_rules_version").toArray()[0]?.version ?? 0);
    return this.versionCache;
  }

  /** The version, and the list only when it differs from `known`. */
  snapshot(known?: string): RulesSnapshot {
    const version = this.version();
    return version === known ? { version } : { version, rules: this.list() };
  }

  private bump(): void {
    this.sql.exec(
      "INSERT INTO argument_rules_version (one, version) VALUES (1, 1) ON CONFLICT(one) DO UPDATE SET version = argument_rules_version.version + 1",
    );
    this.versionCache = undefined;
  }
}
