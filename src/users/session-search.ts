// Full-text search over one user's sessions: SQLite FTS5 in their account object
// (src/users/UserAccount.ts), holding each session's title and the text of its user and
// assistant messages. Sessions feed it after each turn (src/session/search-feed.ts); the
// account keeps it in step when a session is renamed or deleted. The index lives in the
// user's own object, so a query can never reach another user's sessions.
import { z } from "zod";

/** A piece of a matching line: `match` marks the words the query found (the page shows them marked). */
export const SnippetPartSchema = z.object({ text: z.string(), match: z.boolean() });
export const SearchHitSchema = z.object({
  /** The message's history seq (the page opens the session there); null for a title. */
  seq: z.number().int().nullable(),
  kind: z.enum(["title", "user", "assistant", "schedule"]),
  snippet: z.array(SnippetPartSchema),
});
export const SearchResultSchema = z.object({
  sessionId: z.string(),
  title: z.string().nullable(),
  lastActivity: z.number(),
  hits: z.array(SearchHitSchema),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;
/** `schedule`: a scheduled run's message, which no one typed (the page says "Schedule:", not "You:"). */
export type IndexedMessage = { seq: number; kind: "user" | "assistant" | "schedule"; text: string };

// snippet() wraps matches in these; they are stripped from indexed text, so they only ever mark matches.
const OPEN = "\uE000";
const CLOSE = "\uE001";
const MARKERS = /[\uE000\uE001]/g;
/** A message longer than this is indexed by its start (the index stays small; long tool-like answers rarely matter). */
const MAX_INDEXED_CHARS = 20_000;
const MAX_QUERY_WORDS = 8;
const HITS_PER_SESSION = 3;
const MAX_SESSIONS = 30;
/** The key a session's title is kept under (messages have their history seq, from 1). */
const TITLE_SEQ = -1;

/**
 * The user's words as an FTS5 query: each word a quoted phrase (so no FTS operator or column
 * filter can be typed in), all required in one line, each a prefix ("quokka" finds "quokkas", and results come while typing).
 */
export function ftsQuery(input: string): string | undefined {
  const words = (input.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w}"*`).join(" ");
}

/** snippet()'s text with its markers, as parts the page renders as text (never as HTML). */
export function snippetParts(marked: string): z.infer<typeof SnippetPartSchema>[] {
  const parts: z.infer<typeof SnippetPartSchema>[] = [];
  let match = false;
  for (const piece of marked.split(/([\uE000\uE001])/)) {
    if (piece === OPEN) match = true;
    else if (piece === CLOSE) match = false;
    else if (piece) parts.push({ text: piece.replace(/\s+/g, " "), match });
  }
  return parts;
}

export class SessionSearch {
  constructor(private readonly sql: SqlStorage) {
    // session_id, seq and kind are stored, not searched: only `body` is tokenized.
    sql.exec(
      "CREATE VIRTUAL TABLE IF NOT EXISTS session_text USING fts5(session_id UNINDEXED, seq UNINDEXED, kind UNINDEXED, body, tokenize = 'unicode61 remove_diacritics 2')",
    );
    // Which row holds each message (a title under seq -1). FTS5 can look a row up only by its
    // rowid: a DELETE by session and seq read the whole index, for every message of every turn,
    // so a turn cost more the more the user had ever written (issue 27).
    sql.exec(
      "CREATE TABLE IF NOT EXISTS session_text_keys (session_id TEXT NOT NULL, seq INTEGER NOT NULL, row INTEGER NOT NULL, PRIMARY KEY (session_id, seq))",
    );
    // An index written before the keys: each row's key is taken once.
    if (sql.exec("SELECT 1 FROM session_text_keys LIMIT 1").toArray().length === 0)
      sql.exec("INSERT OR REPLACE INTO session_text_keys (session_id, seq, row) SELECT session_id, COALESCE(seq, -1), rowid FROM session_text");
  }

  /** Indexes messages of a session (a message sent again replaces its earlier row). */
  addMessages(sessionId: string, messages: IndexedMessage[]): void {
    for (const m of messages) {
      const body = m.text.replace(MARKERS, " ").slice(0, MAX_INDEXED_CHARS);
      this.remove(sessionId, m.seq);
      if (body.trim()) this.insert(sessionId, m.seq, m.kind, body);
    }
  }

  setTitle(sessionId: string, title: string | null): void {
    this.remove(sessionId, TITLE_SEQ);
    if (title) this.insert(sessionId, TITLE_SEQ, "title", title.replace(MARKERS, " "));
  }

  /** A session's messages leave the index (its history was cleared); `withTitle`: its title too (it was deleted). */
  forget(sessionId: string, withTitle: boolean): void {
    const which = `session_id = ?${withTitle ? "" : ` AND seq != ${TITLE_SEQ}`}`;
    this.sql.exec(`DELETE FROM session_text WHERE rowid IN (SELECT row FROM session_text_keys WHERE ${which})`, sessionId);
    this.sql.exec(`DELETE FROM session_text_keys WHERE ${which}`, sessionId);
  }

  clear(): void {
    this.sql.exec("DELETE FROM session_text");
    this.sql.exec("DELETE FROM session_text_keys");
  }

  private insert(sessionId: string, seq: number, kind: "title" | IndexedMessage["kind"], body: string): void {
    this.sql.exec("INSERT INTO session_text (session_id, seq, kind, body) VALUES (?, ?, ?, ?)", sessionId, seq === TITLE_SEQ ? null : seq, kind, body);
    const row = this.sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id;
    this.sql.exec("INSERT OR REPLACE INTO session_text_keys (session_id, seq, row) VALUES (?, ?, ?)", sessionId, seq, row);
  }

  private remove(sessionId: string, seq: number): void {
    const rows = this.sql.exec<{ row: number }>("DELETE FROM session_text_keys WHERE session_id = ? AND seq = ? RETURNING row", sessionId, seq).toArray();
    for (const { row } of rows) this.sql.exec("DELETE FROM session_text WHERE rowid = ?", row);
  }

  /** The user's listed sessions matching `input`, best first, with up to three matching lines each. */
  search(input: string): SearchResult[] {
    const query = ftsQuery(input);
    if (!query) return [];
    // Joined with the list: a row left behind by a session that is gone is never shown.
    const rows = this.sql
      .exec<{ session_id: string; seq: number | null; kind: "title" | IndexedMessage["kind"]; snip: string; title: string | null; last_activity: number }>(
        `SELECT session_text.session_id AS session_id, session_text.seq AS seq, session_text.kind AS kind,
                snippet(session_text, 3, ?, ?, '…', 12) AS snip, sessions.title AS title, sessions.last_activity AS last_activity
         FROM session_text JOIN sessions ON sessions.id = session_text.session_id
         WHERE session_text MATCH ? ORDER BY bm25(session_text) LIMIT 300`,
        OPEN,
        CLOSE,
        query,
      )
      .toArray();
    const results = new Map<string, SearchResult>();
    for (const row of rows) {
      let result = results.get(row.session_id);
      if (!result) {
        if (results.size >= MAX_SESSIONS) continue;
        result = { sessionId: row.session_id, title: row.title, lastActivity: row.last_activity, hits: [] };
        results.set(row.session_id, result);
      }
      if (result.hits.length < HITS_PER_SESSION) result.hits.push({ seq: row.seq, kind: row.kind, snippet: snippetParts(row.snip) });
    }
    return [...results.values()];
  }
}
