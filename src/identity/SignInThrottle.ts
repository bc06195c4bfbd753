// One Durable Object per client address (see sign-in-throttle.ts for who asks and
// when): a token bucket of failed sign-ins, kept in storage so that every isolate,
// and a restart, sees the same count. Only failures take from the bucket: a person
// who mistypes once or twice never notices it, a guesser runs dry after the burst.
// An alarm forgets the address once its bucket is full again, so storage holds
// only addresses that failed recently.
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { takeToken, type Bucket, type BucketLimits } from "../users/token-bucket";

export type ThrottleVerdict =
  /** `watchUntil`: until then a success from this address must still ask (the bucket is not full). */
  { blocked: false; watchUntil: number } | { blocked: true; retryAfterMs: number; watchUntil: number };

const BUCKET_KEY = "failures";
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

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private bucket(): Bucket | undefined {
    const parsed = BucketSchema.safeParse(this.ctx.storage.kv.get(BUCKET_KEY));
    return parsed.success ? parsed.data : undefined;
  }
}
