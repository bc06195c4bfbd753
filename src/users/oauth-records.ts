// A user's OAuth state in their UserAccount's SQLite: per server name, the
// record the OAuth client keeps (client registration, tokens, discovery, the
// scope last asked for), and the sign-ins in progress, keyed by their `state`:
// random, single-use, ten minutes long, bound to the session and server they
// were started for, and holding the PKCE verifier. Nothing here is ever sent to
// a browser; the routes only say whether a server is signed in.
import { z } from "zod";
import type { OAuthRecord } from "../mcp/oauth/provider";

/** How long a started sign-in may take before its state is refused. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

export const PendingSignInSchema = z.object({
  state: z.string(),
  server: z.string(),
  session: z.string(),
  verifier: z.string().nullable(),
  createdAt: z.number(),
});
export type PendingSignIn = z.infer<typeof PendingSignInSchema>;

// The stored record is our own JSON; it is checked for shape only where it is used (serverUrl).
const RecordSchema = z.looseObject({ serverUrl: z.string() });

export class OAuthRecords {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS oauth (server TEXT PRIMARY KEY, record TEXT NOT NULL, updated_at INTEGER NOT NULL)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS oauth_pending (state TEXT PRIMARY KEY, server TEXT NOT NULL, session TEXT NOT NULL, verifier TEXT, created_at INTEGER NOT NULL)`,
    );
  }

  load(server: string): OAuthRecord | undefined {
    const row = this.sql.exec<{ record: string }>("SELECT record FROM oauth WHERE server = ?", server).toArray()[0];
    if (!row) return undefined;
    const parsed = RecordSchema.safeParse(JSON.parse(row.record));
    return parsed.success ? (parsed.data as OAuthRecord) : undefined;
  }

  /** Merges `patch` into the record; a field set to undefined is removed. A record for another URL starts again. */
  save(server: string, patch: Partial<OAuthRecord> & { serverUrl: string }, now = Date.now()): void {
    const current = this.load(server);
    const base = current && current.serverUrl === patch.serverUrl ? current : { serverUrl: patch.serverUrl };
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete merged[key];
      else merged[key] = value;
    }
    this.sql.exec(
      "INSERT INTO oauth (server, record, updated_at) VALUES (?, ?, ?) ON CONFLICT(server) DO UPDATE SET record = excluded.record, updated_at = excluded.updated_at",
      server,
      JSON.stringify(merged),
      now,
    );
  }

  /** Drops the record (sign-out, server removed) and any sign-in in progress for the server. */
  forget(server: string): void {
    this.sql.exec("DELETE FROM oauth WHERE server = ?", server);
    this.sql.exec("DELETE FROM oauth_pending WHERE server = ?", server);
  }

  /** Delete my data: every record (registrations and challenges too) and every sign-in in progress, so none completes after. */
  forgetAll(): void {
    this.sql.exec("DELETE FROM oauth");
    this.sql.exec("DELETE FROM oauth_pending");
  }

  /** The servers with tokens: names only, for the page. */
  signedInServers(): string[] {
    return this.sql
      .exec<{ server: string; record: string }>("SELECT server, record FROM oauth ORDER BY server")
      .toArray()
      .filter((row) => "tokens" in (JSON.parse(row.record) as object))
      .map((row) => row.server);
  }

  startSignIn(state: string, server: string, session: string, now = Date.now()): void {
    this.sql.exec("DELETE FROM oauth_pending WHERE created_at < ?", now - SIGN_IN_TTL_MS);
    this.sql.exec("INSERT INTO oauth_pending (state, server, session, verifier, created_at) VALUES (?, ?, ?, NULL, ?)", state, server, session, now);
  }

  saveVerifier(state: string, verifier: string): void {
    this.sql.exec("UPDATE oauth_pending SET verifier = ? WHERE state = ?", verifier, state);
  }

  /** The sign-in `state` names, removed in the same step (single use); undefined when unknown or expired. */
  takeSignIn(state: string, now = Date.now()): PendingSignIn | undefined {
    const row = this.sql
      .exec<{ state: string; server: string; session: string; verifier: string | null; created_at: number }>(
        "DELETE FROM oauth_pending WHERE state = ? RETURNING state, server, session, verifier, created_at",
        state,
      )
      .toArray()[0];
    if (!row || now - row.created_at > SIGN_IN_TTL_MS) return undefined;
    return PendingSignInSchema.parse({ state: row.state, server: row.server, session: row.session, verifier: row.verifier, createdAt: row.created_at });
  }
}
