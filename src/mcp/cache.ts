// TTL + LRU cache for resource reads and prompts. Map iteration order is insertion
// order, so re-inserting on hit keeps the least recently used entry first.
import { z } from "zod";

export interface CachePolicy {
  ttlMs: number;
  maxEntries: number;
}

export const defaultCache: CachePolicy = { ttlMs: 5 * 60_000, maxEntries: 500 };

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export const CacheStatsSchema = z.object({ hits: z.number(), misses: z.number(), evictions: z.number(), size: z.number() });
export type CacheStats = z.infer<typeof CacheStatsSchema>;

export class TtlLruCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(
    private readonly policy: CachePolicy,
    private readonly now: () => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.expiresAt <= this.now()) {
      this.misses++;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return entry.value;
  }

  /** An expired entry still held: served only as a fallback while its server is down. */
  getStale(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** `ttlMs`: this entry's own lifetime (a server's hint, list-ttl.ts), else the policy's; 0 keeps it for getStale only. */
  set(key: string, value: V, ttlMs = this.policy.ttlMs): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    while (this.entries.size > this.policy.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
      this.evictions++;
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  deleteWhere(predicate: (key: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (predicate(key)) this.entries.delete(key);
  }

  stats(): CacheStats {
    return { hits: this.hits, misses: this.misses, evictions: this.evictions, size: this.entries.size };
  }
}
