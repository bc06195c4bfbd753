// The session's history and settings in the Durable Object's SQLite storage.
// Everything that must survive eviction or a restart lives here; the object
// keeps nothing that matters only in memory. Rows are parsed (zod) when read.
import { z } from "zod";
import { HistoryEntrySchema, type Usage } from "../protocol/messages";
import { TurnTree } from "./turn-tree";

/** A history row as stored: the wire entry plus what only the Worker keeps (a provider's data per tool call). */
export const StoredEntrySchema = HistoryEntrySchema.extend({
  toolCalls: z
    .array(
      z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()), providerData: z.record(z.string(), z.unknown()).optional() }),
    )
    .optional(),
});
export type StoredEntry = z.infer<typeof StoredEntrySchema>;
export type NewEntry = Omit<StoredEntry, "seq" | "createdAt">;

type Row = { seq: number; turn_id: string | null; kind: StoredEntry["kind"]; data: string; created_at: number };

const MAX_REPLAY = 1_000;
/** Who has written in the session (the keys of user entries' authors), kept so no reader depends on the replayable tail. */
const AUTHORS_KEY = "authors";
/** The session's tokens in all, kept as a running sum so a connect need not add up every turn's row. */
const USAGE_TOTAL_KEY = "usage_total";
// A Durable Object's SQLite row holds at most 2 MB; huge tool results are cut to this.
const MAX_ENTRY_CHARS = 256 * 1024;

/** The entry's data as stored: cut when too large, and never a throw (deep or odd values). */
function storable(rest: Record<string, unknown>): string {
  let data: string | undefined;
  try {
    data = JSON.stringify(rest);
  } catch {
    data = undefined;
  }
  if (data !== undefined && data.length <= MAX_ENTRY_CHARS) return data;
  const cut = (value: unknown) => {
    if (value === undefined) return undefined;
    if (typeof value === "string") return value.length > MAX_ENTRY_CHARS / 4 ? `${value.slice(0, MAX_ENTRY_CHARS / 4)}…[truncated]` : value;
    return "[too large to store]";
  };
  return JSON.stringify({
    ...rest,
    arguments: rest.arguments === undefined ? undefined : { truncated: true },
    result: cut(rest.result),
    text: cut(rest.text),
    error: cut(rest.error),
  });
}

export class HistoryStore {
  // The replayable tail in memory: a turn reads the history at every model step,
  // and parsing a thousand rows each time cost more than the model call itself.
  private cache?: StoredEntry[];
  private readonly settingsCache = new Map<string, unknown>();
  /** Changes with every entry written or the history cleared (model-view.ts keeps its view until then). */
  revision = 0;
  /** Which turns are on the conversation's current path (regenerated and edited turns branch off). */
  readonly tree: TurnTree;

  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number = Date.now,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS history (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      turn_id TEXT,
      kind TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at INTEGER NOT NULL
    )`);
    sql.exec("CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS turn_usage (turn_id TEXT PRIMARY KEY, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL)");
    this.tree = new TurnTree(sql, this);
  }

  append(entry: NewEntry): StoredEntry {
    const createdAt = this.now();
    const { turnId, kind, ...rest } = entry;
    const row = this.sql
      .exec<{ seq: number }>("INSERT INTO history (turn_id, kind, data, created_at) VALUES (?, ?, ?, ?) RETURNING seq", turnId, kind, storable(rest), createdAt)
      .one();
    const saved = { ...entry, seq: row.seq, createdAt };
    if (entry.kind === "user" && entry.author) {
      const authors = this.authors();
      if (!authors.includes(entry.author.key)) this.setSetting(AUTHORS_KEY, [...authors, entry.author.key]);
    }
    this.revision++;
    if (this.cache) {
      this.cache.push(saved);
      if (this.cache.length > MAX_REPLAY) this.cache.shift();
    }
    return saved;
  }

  /** When the newest entry was written (ms), or undefined for an empty session. */
  lastActivity(): number | undefined {
    return this.sql.exec<{ at: number | null }>("SELECT MAX(created_at) AS at FROM history").one().at ?? undefined;
  }

  /** The conversation as shown and as the model sees it: entries of no turn, and of the turns on the current path. */
  entries(): StoredEntry[] {
    const path = new Set(this.tree.path());
    return this.allEntries().filter((e) => e.turnId === null || path.has(e.turnId));
  }

  /** Every branch's entries, in the order they were written. */
  allEntries(): StoredEntry[] {
    this.cache ??= this.load(MAX_REPLAY);
    return this.cache.slice();
  }

  /**
   * The person keys of everyone who wrote a user entry here, any version, however long ago: a
   * saved list (a handful of people) kept as entries are appended, since the replayable tail
   * holds only the newest 1,000 rows. A session from before the list reads it from all its rows once.
   */
  authors(): string[] {
    const kept = this.getSetting<string[]>(AUTHORS_KEY);
    if (kept) return kept;
    const found = this.sql
      .exec<{ key: string }>(
        "SELECT DISTINCT json_extract(data, '$.author.key') AS key FROM history WHERE kind = 'user' AND json_extract(data, '$.author.key') IS NOT NULL",
      )
      .toArray()
      .map((r) => String(r.key));
    this.setSetting(AUTHORS_KEY, found);
    return found;
  }

  /** The turns of the stored history, in the order they began (for sessions from before branches). */
  turnIdsInOrder(): string[] {
    return this.sql
      .exec<{ turn_id: string }>("SELECT turn_id FROM history WHERE turn_id IS NOT NULL GROUP BY turn_id ORDER BY MIN(seq)")
      .toArray()
      .map((r) => r.turn_id);
  }

  private load(limit: number): StoredEntry[] {
    return this.parse(
      this.sql
        .exec<Row>("SELECT * FROM (SELECT seq, turn_id, kind, data, created_at FROM history ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC", limit)
        .toArray(),
    );
  }

  /** Up to `limit` rows (any branch) older than `before`, oldest first: a page of history the replay no longer holds. */
  before(before: number, limit: number): StoredEntry[] {
    return this.parse(
      this.sql
        .exec<Row>(
          "SELECT * FROM (SELECT seq, turn_id, kind, data, created_at FROM history WHERE seq < ? ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC",
          before,
          limit,
        )
        .toArray(),
    );
  }

  /** One entry, whole (a window sends big ones shortened). */
  entry(seq: number): StoredEntry | undefined {
    return this.parse(this.sql.exec<Row>("SELECT seq, turn_id, kind, data, created_at FROM history WHERE seq = ?", seq).toArray())[0];
  }

  private parse(rows: Row[]): StoredEntry[] {
    return rows.map((row) => {
      const base = { seq: row.seq, turnId: row.turn_id, createdAt: row.created_at };
      let data: unknown;
      try {
        data = JSON.parse(row.data);
      } catch {
        data = undefined;
      }
      const parsed = StoredEntrySchema.safeParse({ ...(typeof data === "object" && data !== null ? data : {}), ...base, kind: row.kind });
      // A row this version cannot read stays in place, said plainly, rather than breaking the replay.
      return parsed.success ? parsed.data : { ...base, kind: "error" as const, text: "[an older entry could not be read]" };
    });
  }

  count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM history").one().n;
  }

  /** The model tokens a turn spent (a turn's figures add up if it is recorded twice). */
  recordUsage(turnId: string, usage: Usage): void {
    const [input, output] = [Math.round(usage.inputTokens), Math.round(usage.outputTokens)];
    const total = this.usageTotal();
    this.sql.exec(
      "INSERT INTO turn_usage (turn_id, input_tokens, output_tokens) VALUES (?, ?, ?) ON CONFLICT(turn_id) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens",
      turnId,
      input,
      output,
    );
    this.setSetting(USAGE_TOTAL_KEY, { inputTokens: total.inputTokens + input, outputTokens: total.outputTokens + output });
  }

  /** Tokens per turn, for the given turns (a window's: all their versions were spent). */
  usage(turnIds: Iterable<string>): Record<string, Usage> {
    const ids = [...new Set(turnIds)];
    const out: Record<string, Usage> = {};
    if (ids.length === 0) return out;
    const rows = this.sql.exec<{ turn_id: string; input_tokens: number; output_tokens: number }>(
      "SELECT turn_id, input_tokens, output_tokens FROM turn_usage WHERE turn_id IN (SELECT value FROM json_each(?))",
      JSON.stringify(ids),
    );
    for (const row of rows) out[row.turn_id] = { inputTokens: row.input_tokens, outputTokens: row.output_tokens };
    return out;
  }

  /** Every turn's tokens added up; a session from before the running sum adds its rows up once. */
  usageTotal(): Usage {
    const kept = this.getSetting<Usage>(USAGE_TOTAL_KEY);
    if (kept) return kept;
    const sum = this.sql.exec<{ i: number | null; o: number | null }>("SELECT SUM(input_tokens) AS i, SUM(output_tokens) AS o FROM turn_usage").one();
    const total = { inputTokens: sum.i ?? 0, outputTokens: sum.o ?? 0 };
    this.setSetting(USAGE_TOTAL_KEY, total);
    return total;
  }

  clear(): void {
    this.sql.exec("DELETE FROM turn_usage");
    this.setSetting(USAGE_TOTAL_KEY, undefined);
    this.sql.exec("DELETE FROM history");
    this.setSetting(AUTHORS_KEY, []);
    this.cache = [];
    this.revision++;
    this.tree.clear();
  }

  getSetting<T>(key: string): T | undefined {
    if (this.settingsCache.has(key)) return this.settingsCache.get(key) as T | undefined;
    const row = this.sql.exec<{ value: string }>("SELECT value FROM settings WHERE key = ?", key).toArray()[0];
    const value = row ? (JSON.parse(row.value) as T) : undefined;
    this.settingsCache.set(key, value);
    return value;
  }

  /** `json`: the value as JSON, when the caller has it already. */
  setSetting(key: string, value: unknown, json = JSON.stringify(value)): void {
    if (value === undefined) this.sql.exec("DELETE FROM settings WHERE key = ?", key);
    else this.sql.exec("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, json);
    // Only once stored: a write that failed (a row over 2 MB) must not be read back as if kept.
    this.settingsCache.set(key, value);
  }
}
