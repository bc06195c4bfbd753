// Which of a person's connected apps have a client listening for list_changed right now (a
// 2026 `subscriptions/listen` stream or a 2025 GET stream open at the app's object), and
// the fan-out that tells them when the person's own servers changed: a runtime server
// added, edited or removed, an OAuth sign-in or sign-out, a paired machine online, offline
// or announcing other servers. Only apps whose watch has not lapsed are called: an app
// renews its watch while a stream is open (src/gateway/stream-watch.ts), so an idle app's
// object is never woken for a change nobody would hear.
//
// users/ must not import gateway/ (the app object imports users/): the one RPC it calls is
// declared here and the stub typed to it, as share-object.ts does for its object.
import type { Env } from "../config/env";

/** What changed, when the app can do more than list again: the server signed in to or out of. */
export interface OwnerChange {
  oauth?: string;
}

/** The RPC of a connected app's object (src/gateway/GatewayApp.ts) the account calls. */
export interface WatchingApp {
  ownerChanged(change: OwnerChange): Promise<void>;
}

export function watchingApp(env: Pick<Env, "GATEWAY_APP">, appId: string): WatchingApp {
  // The stub's RPC methods are GatewayApp's; only this one is called from here.
  return env.GATEWAY_APP.get(env.GATEWAY_APP.idFromName(appId)) as unknown as WatchingApp;
}

export class AppWatchers {
  constructor(
    private readonly sql: SqlStorage,
    private readonly app: (appId: string) => WatchingApp,
  ) {
    sql.exec("CREATE TABLE IF NOT EXISTS app_watchers (app_id TEXT PRIMARY KEY, until INTEGER NOT NULL)");
  }

  /** The app's clients listen until `until` (renewed while a stream is open); 0: nobody listens any more. */
  watch(appId: string, until: number, now: number): void {
    // Lapsed rows go here, so the table holds at most the apps watched in the last few minutes.
    this.sql.exec("DELETE FROM app_watchers WHERE until <= ?", now);
    if (until > now)
      this.sql.exec("INSERT INTO app_watchers (app_id, until) VALUES (?, ?) ON CONFLICT(app_id) DO UPDATE SET until = excluded.until", appId, until);
    else this.sql.exec("DELETE FROM app_watchers WHERE app_id = ?", appId);
  }

  /** The apps listening now. (A Disconnect closes the app's streams, and so ends its watch: its object says so.) */
  watching(now: number): string[] {
    return this.sql
      .exec<{ app_id: string }>("SELECT app_id FROM app_watchers WHERE until > ?", now)
      .toArray()
      .map((r) => r.app_id);
  }

  /** Tells each listening app; one app failing (evicted mid-call, say) does not keep the others from hearing it. */
  async changed(change: OwnerChange, now: number): Promise<void> {
    await Promise.all(
      this.watching(now).map((appId) =>
        this.app(appId)
          .ownerChanged(change)
          .catch(() => undefined),
      ),
    );
  }

  clear(): void {
    this.sql.exec("DELETE FROM app_watchers");
  }
}
