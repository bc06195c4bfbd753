// A token bucket as plain data, so it can live in durable storage: a burst of
// requests is fine, a flood is not, and a restart does not refill it.

export interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms epoch). */
  at: number;
}

export interface BucketLimits {
  perMinute: number;
  burst: number;
}

/** The bucket after one request at `now`, and 0 when allowed, else ms until one would be. */
export function takeToken(bucket: Bucket | undefined, limits: BucketLimits, now: number): { bucket: Bucket; waitMs: number } {
  const start = bucket ?? { tokens: limits.burst, at: now };
  // Time never runs backwards for the bucket: a clock that stepped back refills nothing
  // until it has caught up with the last update.
  const at = Math.max(start.at, now);
  const tokens = Math.min(limits.burst, start.tokens + ((at - start.at) * limits.perMinute) / 60_000);
  if (tokens >= 1) return { bucket: { tokens: tokens - 1, at }, waitMs: 0 };
  return { bucket: { tokens, at }, waitMs: Math.ceil(((1 - tokens) * 60_000) / limits.perMinute) + (at - now) };
}
