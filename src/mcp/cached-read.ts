// A prompt or resource read through the host's cache: a fresh copy answers at once,
// else the server is asked (safe to retry: a read has no side effect), and while the
// server is down an expired copy beats no answer. The cache is the host's only one:
// reads go through `client.request`, not the SDK's own cached verbs. A read that says
// its ttl (MCP 2026-07-28 `ttlMs`, list-ttl.ts) is fresh that long, 0 not at all; one
// that says none (2025) keeps the host's policy. The cache is the session's (one user),
// so a private read is never served to another.
import type { GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";
import { withRetry, type BackoffPolicy } from "../shared/backoff";
import type { TtlLruCache } from "./cache";
import { isTransient, linkSignal, translateError } from "./call";
import type { ServerConnection } from "./connection";
import { resultTtl } from "./list-ttl";

export type Cached = { kind: "resource"; value: ReadResourceResult } | { kind: "prompt"; value: GetPromptResult };

export interface RequestOptions {
  bypassCache?: boolean;
  signal?: AbortSignal;
}

export interface CachedReadDeps {
  cache: TtlLruCache<Cached>;
  now: () => number;
  retry: BackoffPolicy;
}

export async function cachedRead(
  deps: CachedReadDeps,
  key: string,
  connection: ServerConnection,
  options: RequestOptions,
  load: (client: NonNullable<ServerConnection["client"]>, signal?: AbortSignal) => Promise<ReadResourceResult | GetPromptResult>,
): Promise<ReadResourceResult | GetPromptResult> {
  const { cache, now } = deps;
  if (!options.bypassCache) {
    const hit = cache.get(key);
    if (hit) return hit.value;
  }
  const started = now();
  try {
    const value = await withRetry(
      async () => {
        const link = linkSignal(options.signal);
        try {
          return await load(await connection.ready(), link.signal);
        } finally {
          link.dispose();
        }
      },
      deps.retry,
      (error) => isTransient(error) && !options.signal?.aborted,
      options.signal,
    );
    connection.stats.record(undefined, now() - started, "ok");
    const entry: Cached = key.startsWith("prompt")
      ? { kind: "prompt", value: value as GetPromptResult }
      : { kind: "resource", value: value as ReadResourceResult };
    cache.set(key, entry, entry.kind === "resource" ? resultTtl(value) : undefined);
    return value;
  } catch (error) {
    const translated = translateError(error, connection, undefined, connection.config.timeoutMs, options.signal);
    connection.stats.record(undefined, now() - started, translated.code === "tool_timeout" ? "timeout" : "error");
    const stale = translated.code === "server_unavailable" ? cache.getStale(key) : undefined;
    if (stale) return stale.value;
    throw translated;
  }
}
