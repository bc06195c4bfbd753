// Cacheable lists (MCP 2026-07-28, SEP-2549): a list or read result carries `ttlMs`, how
// long it may be used without asking the server again, and `cacheScope`, whether it may
// be served to other users ("public") or only to the same authorization context
// ("private", the default). Absent or 0 means immediately stale: today's behaviour,
// every connect reads the list. The SDK's own response cache serves only its list
// verbs on a connected client, while the host reads lists page by page itself and a
// new session needs them before it connects, so the host keeps them: in the
// connection's offerings for reconnects, and with the session's discovery rows (per
// owner) for new sessions (src/session/mcp/kept-lists.ts).
import { isSpecType, MAX_CACHE_TTL_MS } from "@modelcontextprotocol/client";
import { z } from "zod";

/** The lists a server offers; "resources" covers resources/list and resources/templates/list. */
export type ListKind = "tools" | "prompts" | "resources";

export const CacheScopeSchema = z.enum(["public", "private"]);
export type CacheScope = z.infer<typeof CacheScopeSchema>;

/** A list as read, with how long it stays fresh: `items` as the server sent them (resources: `templates` too). */
export const KeptListSchema = z.object({
  expiresAt: z.number(),
  scope: CacheScopeSchema,
  items: z.array(z.unknown()),
  templates: z.array(z.unknown()).optional(),
});
export type KeptList = z.infer<typeof KeptListSchema>;

/** Where a connection finds lists kept elsewhere (a session's rows) and tells of lists it read. */
export interface ListMemory {
  /** A list of `server` still fresh at `now`, if one is kept. */
  freshList?(server: string, kind: ListKind, now: number): KeptList | undefined;
  /** `server`'s list was read: kept while fresh (undefined: it has no ttl, drop any kept). */
  listed?(server: string, kind: ListKind, list: KeptList | undefined): void;
}

const HintSchema = z.object({ ttlMs: z.number().optional(), cacheScope: z.string().optional() });

/** The ttl a result asks for (capped as the SDK caps it), or undefined when it names none (a 2025 result). */
export function resultTtl(result: unknown): number | undefined {
  const hint = HintSchema.safeParse(result);
  const ttl = hint.success ? hint.data.ttlMs : undefined;
  if (ttl === undefined || !Number.isFinite(ttl)) return undefined;
  // Negative is read as 0 (the spec); a server cannot pin an entry for longer than a day.
  return Math.min(Math.max(0, Math.floor(ttl)), MAX_CACHE_TTL_MS);
}

/** A result's scope: "public" only when it says so. */
export function resultScope(result: unknown): CacheScope {
  const hint = HintSchema.safeParse(result);
  return hint.success && hint.data.cacheScope === "public" ? "public" : "private";
}

/**
 * The freshness of a list read page by page: each page carries its own hint, so the
 * whole list is fresh as long as its shortest-lived page, and private if any page is.
 */
export class ListFreshness {
  private ttl?: number;
  private scope: CacheScope = "public";

  constructor(private readonly receivedAt: number) {}

  /** Notes a page's hints; the page is handed on unchanged. */
  readonly page = <R>(result: R): R => {
    const ttl = resultTtl(result) ?? 0;
    this.ttl = this.ttl === undefined ? ttl : Math.min(this.ttl, ttl);
    if (resultScope(result) === "private") this.scope = "private";
    return result;
  };

  /** The list to keep, or undefined when it is stale at once (no ttl, or 0). */
  keep(items: unknown[], templates?: unknown[]): KeptList | undefined {
    if (!this.ttl) return undefined;
    return { expiresAt: this.receivedAt + this.ttl, scope: this.scope, items, ...(templates ? { templates } : {}) };
  }
}

/** Whether `list` is fresh at `now`, and its items still read as the spec's shapes (a kept row is data from storage). */
export function usable(kind: ListKind, list: KeptList | undefined, now: number): list is KeptList {
  if (!list || list.expiresAt <= now) return false;
  if (kind === "tools") return list.items.every((item) => isSpecType.Tool(item));
  if (kind === "prompts") return list.items.every((item) => isSpecType.Prompt(item));
  return list.items.every((item) => isSpecType.Resource(item)) && (list.templates ?? []).every((item) => isSpecType.ResourceTemplate(item));
}
