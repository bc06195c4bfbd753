// One Durable Object per throttled key: a client address or a person (see
// sign-in-throttle.ts and pairing-throttle.ts for who asks and when), kept in storage so
// that every isolate, and a restart, sees the same count. Two kinds, never mixed in one
// object (the key names which): a token bucket of failures (wrong tokens, wrong pairing
// codes), where only failures take from the bucket, so a person who mistypes once or twice
// never notices it and a guesser runs dry after the burst; and holds (pairings started),
// each counted until its window ends, at most `max` at a time. An alarm forgets the key
// once its bucket is full again and its holds have ended, so storage holds only keys
// that failed or started something recently.
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { takeToken, type Bucket, type BucketLimits } from "../users/token-bucket";

export type ThrottleVerdict =
  /** `watchUntil`: until then a success from this address must still ask (the bucket is not full). */
  { blocked: false; watchUntil: number } | { blocked: true; retryAfterMs: number; watchUntil: number };

const BUCKET_KEY = "failures";
/** Holds live in SQL: the deployment-wide key may have thousands (PAIRINGS_PENDING_MAX). */
const HOLDS = "holds";

export type HoldVerdict = { blocked: false } | { blocked: true; retryAfterMs: number };
const BucketSchema = z.object({ tokens: z.number(), at: z.number() });

/** When `bucket` will be full again. */
function fullAt(bucket: Bucket, limits: BucketLimits): number {
  return bucket.at + Math.ceil(((limits.burst - bucket.tokens) * 60_000) / limits.perMinute);
}

export class SignInThrottle extends DurableObject<unknown> {
  /** A failed sign-in: counted, and whether the address may still be told "wrong token" (401) or is throttled (429). */
  fail(limits: BucketLimits, now = Date.now()): ThrottleVerdict {
    const { bucket, waitMs } = takeToken(this.bucket(), limits, now);
    // Confirmed before the answer leaves (no allowUnconfirmed): a guess must be counted
    // before its 401 reaches the guesser.
    this.ctx.storage.kv.put(BUCKET_KEY, bucket);
    const watchUntil = fullAt(bucket, limits);
    void this.ctx.storage.setAlarm(watchUntil);
    return waitMs > 0 ? { blocked: true, retryAfterMs: waitMs, watchUntil } : { blocked: false, watchUntil };
  }

  /** A successful sign-in from an address with recent failures: refused while the address is throttled, and not counted. */
  check(limits: BucketLimits, now = Date.now()): ThrottleVerdict {
    const stored = this.bucket();
    if (!stored) return { blocked: false, watchUntil: 0 };
    // takeToken on a copy: the answer to "could one more be taken?", without taking it.
    const { waitMs } = takeToken(stored, limits, now);
    const watchUntil = fullAt(stored, limits);
    return waitMs > 0 ? { blocked: true, retryAfterMs: waitMs, watchUntil } : { blocked: false, watchUntil };
  }

  /** One more thing that lasts `windowMs` (a pairing started): refused, with when the oldest ends, while `max` are within theirs. */
  hold(max: number, windowMs: number, now = Date.now()): HoldVerdict {
    const sql = this.ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS ${HOLDS} (until INTEGER NOT NULL)`);
    sql.exec(`DELETE FROM ${HOLDS} WHERE until <= ?`, now);
    const { live, first } = sql.exec<{ live: number; first: number | null }>(`SELECT count(*) AS live, min(until) AS first FROM ${HOLDS}`).one();
    if (live >= max) return { blocked: true, retryAfterMs: Math.max(1, (first ?? now) - now) };
    sql.exec(`INSERT INTO ${HOLDS} (until) VALUES (?)`, now + windowMs);
    // The newest hold ends last: the alarm then finds nothing left to keep.
    void this.ctx.storage.setAlarm(now + windowMs);
    return { blocked: false };
  }

  override async alarm(): Promise<void> {
    // A failure's alarm (fail) may come before the last hold ends: wait for that one.
    const last = this.lastHold();
    if (last > Date.now()) return this.ctx.storage.setAlarm(last);
    await this.ctx.storage.deleteAll();
  }

  private lastHold(): number {
    const sql = this.ctx.storage.sql;
    if (sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", HOLDS).toArray().length === 0) return 0;
    return sql.exec<{ last: number | null }>(`SELECT max(until) AS last FROM ${HOLDS}`).one().last ?? 0;
  }

  private bucket(): Bucket | undefined {
    const parsed = BucketSchema.safeParse(this.ctx.storage.kv.get(BUCKET_KEY));
    return parsed.success ? parsed.data : undefined;
  }
}
