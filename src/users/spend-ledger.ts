// The user's spend, in their UserAccount: request rates (a token bucket per kind, in the
// object's key-value storage) and model tokens per UTC day (SQLite), with the holds of
// running turns and sampling answers (reservations.ts) counted as spent until they settle.
import { z } from "zod";
import { Reservations } from "./reservations";
import { takeToken, type Bucket, type BucketLimits } from "./token-bucket";

export type SpendKind = "turn" | "call" | "upload" | "share";

/** A turn's worst-case tokens to hold (`id`), and the hold of the session's previous turn to end (`release`). */
export interface TokenHold {
  id: string;
  tokens: number;
  release?: string;
}

export type SpendDecision =
  | { ok: true }
  | { ok: false; code: "rate_limited"; message: string; retryAfterMs: number }
  | { ok: false; code: "budget_exhausted"; message: string }
  /** Delete my data is running (src/users/erase-state.ts). */
  | { ok: false; code: "account_erasing"; message: string };

export type SpendLimits = BucketLimits & { dailyTokens?: number };

const BucketSchema = z.object({ tokens: z.number(), at: z.number() });

/** Where a spend bucket is kept (the key-value API: it can be written without holding the answer back, SpendLedger.keep). */
export const bucketKey = (kind: SpendKind) => `bucket:${kind}`;

/** The UTC day a usage figure counts towards. */
const today = (now: number) => new Date(now).toISOString().slice(0, 10);

export class SpendLedger {
  private readonly reservations: Reservations;
  /** The day whose older rows were last dropped (in memory: this object is the only writer). */
  private usageDay?: string;
  /**
   * Buckets taken since their last write, which waits for the next macrotask (writeBuckets).
   * They are what the next admission reads: two messages in one instant never both take the
   * stored token. Lost in a crash before that write: the counts of that one instant.
   */
  private readonly unwritten = new Map<SpendKind, Bucket>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly storage: DurableObjectStorage,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS usage (day TEXT PRIMARY KEY, tokens INTEGER NOT NULL)`);
    this.reservations = new Reservations(sql);
  }

  /** Counts one turn or direct call against the user's rate, and for turns checks the daily token budget. */
  admit(kind: SpendKind, limits: SpendLimits, now = Date.now(), hold?: TokenHold): SpendDecision {
    // What other running turns and sampling answers still hold counts as spent (reservations.ts).
    const held = kind === "turn" && limits.dailyTokens !== undefined ? this.reservations.held(now, hold?.id) : 0;
    const spent = kind === "turn" && limits.dailyTokens !== undefined ? this.tokensUsed(now) + held : 0;
    if (kind === "turn" && limits.dailyTokens !== undefined && spent >= limits.dailyTokens) {
      const running = held > 0 ? ` Your turns still running hold ${held} tokens of it until they finish.` : "";
      return {
        ok: false,
        code: "budget_exhausted",
        message: `Your daily model budget of ${limits.dailyTokens} tokens is used up; it renews at 00:00 UTC.${running}`,
      };
    }
    const { bucket, waitMs } = takeToken(this.bucket(kind), limits, now);
    this.keep(kind, bucket);
    if (waitMs > 0) {
      const what = { turn: "messages", call: "tool calls", upload: "uploads", share: "shared links" }[kind];
      return { ok: false, code: "rate_limited", message: `Too many ${what}: try again in ${Math.ceil(waitMs / 1000)} s.`, retryAfterMs: waitMs };
    }
    // The turn's worst case, within what is left: parallel turns then pass the budget by one turn's worth at most.
    if (hold && limits.dailyTokens !== undefined) this.reservations.hold(hold.id, Math.min(hold.tokens, limits.dailyTokens - spent), now);
    return { ok: true };
  }

  /** The bucket as last taken: the one not written yet, else the stored one. */
  private bucket(kind: SpendKind): Bucket | undefined {
    const unwritten = this.unwritten.get(kind);
    if (unwritten) return unwritten;
    const stored = BucketSchema.safeParse(this.storage.kv.get(bucketKey(kind)));
    return stored.success ? (stored.data as Bucket) : undefined;
  }

  /**
   * Every turn passes here before its first model call, so the bucket's write waits until
   * after the answer. Written now, its commit (a disk sync here; on a deployment a
   * replication round trip) comes before the answer leaves: unconfirmed, it no longer holds
   * the answer back (the output gate), but locally every object shares workerd's one thread
   * and the sync still blocked it (1-5 ms per turn, bench/first-token.ts --syscalls). A timer
   * fires after the answer is on its way. A budget's spend and holds stay confirmed SQL writes:
   * only a rate's last instant may be lost. A failed write still restarts the object.
   */
  private keep(kind: SpendKind, bucket: Bucket): void {
    if (this.unwritten.size === 0) setTimeout(() => this.writeBuckets(), 0);
    this.unwritten.set(kind, bucket);
  }

  private writeBuckets(): void {
    const entries = Object.fromEntries([...this.unwritten].map(([kind, bucket]) => [bucketKey(kind), bucket]));
    this.unwritten.clear();
    void this.storage.put(entries, { allowUnconfirmed: true });
  }

  /** `release`: the hold these tokens settle (a finished turn's or sampling answer's). */
  addUsage(tokens: number, release?: string, now = Date.now()): number {
    this.reservations.release(release);
    if (!Number.isFinite(tokens) || tokens <= 0) return this.tokensUsed(now);
    const day = today(now);
    const row = this.sql
      .exec<{ tokens: number }>(
        "INSERT INTO usage (day, tokens) VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET tokens = tokens + excluded.tokens RETURNING tokens",
        day,
        Math.round(tokens),
      )
      .one();
    // Only today's figure matters; older days are dropped (once per day and wake).
    if (this.usageDay !== day) this.sql.exec("DELETE FROM usage WHERE day <> ?", day);
    this.usageDay = day;
    return row.tokens;
  }

  tokensUsed(now = Date.now()): number {
    return this.sql.exec<{ tokens: number }>("SELECT tokens FROM usage WHERE day = ?", today(now)).toArray()[0]?.tokens ?? 0;
  }

  /** A sampling answer's worst case, held before the model is asked; the refusal when the budget has no room. */
  holdSampling(id: string, tokens: number, dailyTokens: number, now = Date.now()): string | undefined {
    const spent = this.tokensUsed(now) + this.reservations.held(now, id);
    if (spent >= dailyTokens) return `the user's daily model budget of ${dailyTokens} tokens is used up`;
    this.reservations.hold(id, Math.min(tokens, dailyTokens - spent), now);
    return undefined;
  }
}
