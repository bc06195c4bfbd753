// The apps a person connected to `/mcp` (Connected apps), kept in their account's SQLite:
// which client, where its tokens go, when it was connected and last used, whether it may spend
// the person's model budget, and its generation. A generation is handed out once per consent
// from a counter that is never reset (not by Disconnect, not by Delete my data), so a token
// of an earlier consent can never match the app object's current one again.
import { z } from "zod";

export const AppIdSchema = z.string().regex(/^[0-9a-f]{40}$/, "an app id is 40 hex digits");

export interface AppConnection {
  appId: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  scopes: string[];
  sampling: boolean;
}

export interface ConnectedApp extends AppConnection {
  gen: number;
  connectedAt: number;
  /** Last time the app's object served a call (touched at most once a minute); null: never. */
  lastUsed: number | null;
}

type Row = {
  app_id: string;
  client_id: string;
  client_name: string;
  redirect_host: string;
  scopes: string;
  sampling: number;
  gen: number;
  connected_at: number;
  last_used: number | null;
};

/** How many apps one person keeps at once (a registration loop must not grow the account without bound). */
export const MAX_APPS = 100;

const toApp = (r: Row): ConnectedApp => ({
  appId: r.app_id,
  clientId: r.client_id,
  clientName: r.client_name,
  redirectHost: r.redirect_host,
  scopes: r.scopes ? r.scopes.split(" ") : [],
  sampling: r.sampling === 1,
  gen: r.gen,
  connectedAt: r.connected_at,
  lastUsed: r.last_used,
});

export class ConnectedApps {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS connected_apps (
      app_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, client_name TEXT NOT NULL, redirect_host TEXT NOT NULL,
      scopes TEXT NOT NULL, sampling INTEGER NOT NULL, gen INTEGER NOT NULL, connected_at INTEGER NOT NULL, last_used INTEGER)`);
    sql.exec("CREATE TABLE IF NOT EXISTS connected_app_generation (id INTEGER PRIMARY KEY CHECK (id = 1), last INTEGER NOT NULL)");
  }

  /** A consent given: the app (re)connected under a new generation, which it returns. */
  connect(app: AppConnection, now: number): { ok: true; gen: number } | { ok: false } {
    const known = this.get(app.appId) !== undefined;
    if (!known && this.count() >= MAX_APPS) return { ok: false };
    const gen = this.sql
      .exec<{ last: number }>("INSERT INTO connected_app_generation (id, last) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET last = last + 1 RETURNING last")
      .one().last;
    this.sql.exec(
      `INSERT INTO connected_apps (app_id, client_id, client_name, redirect_host, scopes, sampling, gen, connected_at, last_used)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)
       ON CONFLICT(app_id) DO UPDATE SET client_id = excluded.client_id, client_name = excluded.client_name,
         redirect_host = excluded.redirect_host, scopes = excluded.scopes, sampling = excluded.sampling, gen = excluded.gen, connected_at = excluded.connected_at`,
      app.appId,
      app.clientId,
      app.clientName,
      app.redirectHost,
      app.scopes.join(" "),
      app.sampling ? 1 : 0,
      gen,
      now,
    );
    return { ok: true, gen };
  }

  list(): ConnectedApp[] {
    return this.sql.exec<Row>("SELECT * FROM connected_apps ORDER BY connected_at DESC").toArray().map(toApp);
  }

  get(appId: string): ConnectedApp | undefined {
    const row = this.sql.exec<Row>("SELECT * FROM connected_apps WHERE app_id = ?", appId).toArray()[0];
    return row ? toApp(row) : undefined;
  }

  /** The app after the change, or undefined when the person has no such app. */
  setSampling(appId: string, sampling: boolean): ConnectedApp | undefined {
    this.sql.exec("UPDATE connected_apps SET sampling = ? WHERE app_id = ?", sampling ? 1 : 0, appId);
    return this.get(appId);
  }

  /** The app's object served a call at `at` (only a connected app is touched). */
  used(appId: string, at: number): void {
    this.sql.exec("UPDATE connected_apps SET last_used = ? WHERE app_id = ? AND (last_used IS NULL OR last_used < ?)", at, appId, at);
  }

  /** Disconnect: the app leaves the list (its object and grants are revoked by the caller); the removed app. */
  remove(appId: string): ConnectedApp | undefined {
    const app = this.get(appId);
    if (app) this.sql.exec("DELETE FROM connected_apps WHERE app_id = ?", appId);
    return app;
  }

  /** Delete my data: every app leaves the list, and is returned to be disconnected; the generation counter stays. */
  takeAll(): ConnectedApp[] {
    const apps = this.list();
    this.sql.exec("DELETE FROM connected_apps");
    return apps;
  }

  private count(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM connected_apps").one().n;
  }
}
