// The cache hints (`ttlMs`, `cacheScope`, SEP-2549) a 2026 client gets on the lists and
// reads it may keep. A 2025 child gives none, so the bridge says how long it can stand
// behind an answer: a list only while the child said it announces that list's changes
// (`listChanged`) and runs, so the bridge hears a change and passes it on to
// subscriptions/listen streams (and a caching client that listens evicts on it); a
// resource only while the bridge holds the child's subscription to that URI, for the same
// reason. Otherwise 0 (keep, but ask again before use). Scope: a per-user child's answers
// are that user's (`private`); a shared child's lists are the same for every user of the
// bridge (`public`); a resource's contents stay `private`, as they may be anyone's data.
export interface CacheHint {
  ttlMs: number;
  cacheScope: "public" | "private";
}

/** How long a client may use a list or read without asking again, while the bridge can vouch for it. */
export const VOUCHED_TTL_MS = 60_000;

export const NO_CACHE: CacheHint = { ttlMs: 0, cacheScope: "private" };

/** The capability whose `listChanged` covers each list. */
const LIST_OF: Record<string, string> = {
  "tools/list": "tools",
  "prompts/list": "prompts",
  "resources/list": "resources",
  "resources/templates/list": "resources",
};

export interface CacheFacts {
  /** The child's capabilities from its handshake. */
  capabilities: Record<string, unknown>;
  /** The child runs: its notifications reach the bridge. */
  live: boolean;
  /** A per-user child (`"isolation": "user"`). */
  perUser: boolean;
  /** The bridge holds the child's subscription to this URI. */
  subscribed(uri: string): boolean;
}

export function cacheHint(method: string, params: Record<string, unknown> | undefined, facts: CacheFacts): CacheHint {
  const scope = facts.perUser ? "private" : "public";
  const kind = LIST_OF[method];
  if (kind !== undefined) {
    const capability = facts.capabilities[kind];
    const announced = typeof capability === "object" && capability !== null && (capability as { listChanged?: unknown }).listChanged === true;
    return { ttlMs: announced && facts.live ? VOUCHED_TTL_MS : 0, cacheScope: scope };
  }
  if (method === "resources/read") {
    const uri = typeof params?.uri === "string" ? params.uri : undefined;
    return { ttlMs: uri !== undefined && facts.live && facts.subscribed(uri) ? VOUCHED_TTL_MS : 0, cacheScope: "private" };
  }
  return NO_CACHE;
}
