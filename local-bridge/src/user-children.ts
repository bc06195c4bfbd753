// `"isolation": "user"` servers: one child per user the bridge serves, so a server's
// requests (sampling, elicitation, roots) can never reach another user, whatever calls
// are in flight. A user's child starts on their first request and stops once none of
// their sessions is left (at the bridge's idle sweep); a server has at most
// MAX_CHILDREN_PER_SERVER of them at once. The user "" (a local client) shares the
// child the bridge started at startup.
import type { ServerProxy } from "./proxy";

export const MAX_CHILDREN_PER_SERVER = 16;

export class UserChildren {
  private readonly children = new Map<string, Map<string, ServerProxy>>();
  /** When a child was last seen without sessions: it stops at the sweep after the next. */
  private readonly idleSince = new WeakMap<ServerProxy, number>();

  constructor(private readonly create: (server: string, user: string) => ServerProxy) {}

  /** `user`'s own proxy of `server`, started on first use; undefined when the server has too many users already. */
  get(server: string, user: string): ServerProxy | undefined {
    let byUser = this.children.get(server);
    if (!byUser) this.children.set(server, (byUser = new Map()));
    const existing = byUser.get(user);
    if (existing) return existing;
    if (byUser.size >= MAX_CHILDREN_PER_SERVER) return undefined;
    const proxy = this.create(server, user);
    byUser.set(user, proxy);
    return proxy;
  }

  count(server: string): number {
    return this.children.get(server)?.size ?? 0;
  }

  /** Sessions attached to `server`'s per-user children. */
  sessions(server: string): number {
    return [...(this.children.get(server)?.values() ?? [])].reduce((n, proxy) => n + proxy.sessions.size, 0);
  }

  all(): ServerProxy[] {
    return [...this.children.values()].flatMap((byUser) => [...byUser.values()]);
  }

  /** Stops `server`'s children (every server's when undefined); true when all stopped on SIGTERM. */
  async stop(timeoutMs: number, server?: string): Promise<boolean> {
    const names = server === undefined ? [...this.children.keys()] : [server];
    const results = await Promise.all(
      names.flatMap((name) => {
        const byUser = this.children.get(name);
        this.children.delete(name);
        return [...(byUser?.values() ?? [])].map((proxy) => proxy.stop(timeoutMs));
      }),
    );
    return results.every((r) => !r.killed);
  }

  /** Stops the children no session uses any more. */
  async sweep(timeoutMs: number, idleMs: number, now = Date.now()): Promise<void> {
    for (const byUser of this.children.values()) {
      for (const [user, proxy] of byUser) {
        if (proxy.sessions.size > 0 || now - proxy.lastUsed < idleMs) {
          this.idleSince.delete(proxy);
          continue;
        }
        const since = this.idleSince.get(proxy);
        if (since === undefined) this.idleSince.set(proxy, now);
        if (since === undefined || now - since < idleMs) continue;
        byUser.delete(user);
        await proxy.stop(timeoutMs);
      }
    }
  }
}
