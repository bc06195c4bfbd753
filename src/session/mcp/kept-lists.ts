// The lists a session's servers sent with a ttl (MCP 2026-07-28 `ttlMs`, src/mcp/list-ttl.ts),
// as the host's ListMemory: a connect takes a list still fresh from here instead of asking
// the server. A list the host read in this session comes first; else the one in the
// server's discovery row, kept in the session's storage or seeded from the owner's other
// sessions (their account), so a new session's first connect skips tools/list too. Rows
// are per owner, never shared across users, so a "private" list stays with its user; a
// "public" one is kept the same way (see docs/mcp-features.md "Cacheable lists").
import type { ListKind } from "../../mcp/discovery";
import type { KeptList, ListMemory } from "../../mcp/list-ttl";
import type { KeptLists } from "./discovery-cache";

const KINDS: ListKind[] = ["tools", "prompts", "resources"];

export class SessionLists implements ListMemory {
  /** What the host read here, per server and kind; null: read without a ttl (the row's is stale now). */
  private readonly told = new Map<string, Map<ListKind, KeptList | null>>();

  constructor(private readonly rows: (server: string, kind: ListKind) => KeptList | undefined) {}

  freshList(server: string, kind: ListKind, now: number): KeptList | undefined {
    const list = this.current(server, kind);
    return list && list.expiresAt > now ? list : undefined;
  }

  listed(server: string, kind: ListKind, list: KeptList | undefined): void {
    let told = this.told.get(server);
    if (!told) this.told.set(server, (told = new Map()));
    told.set(kind, list ?? null);
  }

  /** Drops `server`'s lists (read here or kept): the next connect reads them (a sign-in or sign-out: another authorization context). */
  forget(server: string): void {
    this.told.set(server, new Map(KINDS.map((kind) => [kind, null])));
  }

  /** The lists to keep in `server`'s row: those still fresh at `now`, or undefined when none is. */
  of(server: string, now: number): KeptLists | undefined {
    const out: KeptLists = {};
    for (const kind of KINDS) {
      const list = this.freshList(server, kind, now);
      if (list) out[kind] = list;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  private current(server: string, kind: ListKind): KeptList | undefined {
    const told = this.told.get(server);
    return told?.has(kind) ? (told.get(kind) ?? undefined) : this.rows(server, kind);
  }
}
