// The `SettingsStore` of one app object (its SQLite): what the chat keeps per session in
// its settings table, kept here per app — the discovery rows of the app's servers and,
// next round, the tools the person always allows for this app.
import type { SettingsStore } from "../approval/approvals";

export class AppSettings implements SettingsStore {
  private readonly cache = new Map<string, unknown>();

  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  }

  getSetting<T>(key: string): T | undefined {
    if (this.cache.has(key)) return this.cache.get(key) as T | undefined;
    const row = this.sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = ?", key).toArray()[0];
    const value = row ? (JSON.parse(row.value) as T) : undefined;
    this.cache.set(key, value);
    return value;
  }

  setSetting(key: string, value: unknown, json = JSON.stringify(value)): void {
    if (value === undefined) this.sql.exec("DELETE FROM settings WHERE key = ?", key);
    else this.sql.exec("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, json);
    // Only once stored: a write that failed (a row over 2 MB) must not be read back as kept.
    this.cache.set(key, value);
  }
}
