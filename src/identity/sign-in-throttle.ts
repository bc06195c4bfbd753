// Throttling sign-in attempts (the login form and bearer tokens) per client
// address, durably: the count lives in a SignInThrottle Durable Object per address,
// not in an isolate, so spreading guesses over isolates or waiting for a restart
// gains nothing.
//
// Cost: a token is checked locally first (a digest compare). Only a failure goes
// to the object (it must be counted before its 401 leaves). A success goes there
// only when this isolate has seen the address fail recently, so the common case —
// a valid bearer token on every API request — costs no round trip. While an
// address is throttled every attempt answers 429, the right token too: a lucky
// guess is not revealed. What this leaves open: an isolate that never saw the
// address fail lets one correct token through unchecked; a guesser cannot tell
// beforehand which guess is right, and each wrong one is counted and teaches that
// isolate the address (see docs/deploying.md, "Guessing is throttled").
import type { Env } from "../config/env";
import { runtimeConfig } from "../config/runtime-config";
import { EdgehostError, type PublicError } from "../shared/errors";
import type { BucketLimits } from "../users/token-bucket";
import type { SignInThrottle, ThrottleVerdict } from "./SignInThrottle";

/** Cloudflare sets it on every request that came through its network, replacing any a client sent. */
const CLIENT_ADDRESS_HEADER = "cf-connecting-ip";
/**
 * Without the header the request did not come through Cloudflare (`wrangler dev`, a
 * test): all such clients share one bucket, the safe side of not knowing who they are.
 */
export const UNKNOWN_ADDRESS = "unknown";
/** Addresses this isolate remembers failing; the oldest are forgotten first (they are only a shortcut). */
const REMEMBERED = 10_000;

export class SignInThrottledError extends EdgehostError {
  readonly code = "sign_in_throttled";
  constructor(
    readonly retryAfterMs: number,
    what = "failed sign-ins from your address",
  ) {
    super(`Too many ${what}: try again in ${Math.ceil(retryAfterMs / 1000)} s.`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, retryAfterMs: this.retryAfterMs };
  }
}

/**
 * The address attempts are counted by. IPv6 by its /64: one subscriber usually holds a
 * whole /64, so counting single addresses would give a guesser 2^64 buckets.
 */
export function clientAddress(headers: Headers): string {
  const raw = headers.get(CLIENT_ADDRESS_HEADER)?.trim().toLowerCase();
  if (!raw || raw.length > 64 || !/^[0-9a-f.:]+$/.test(raw)) return UNKNOWN_ADDRESS;
  if (!raw.includes(":")) return raw;
  const [head = "", tail = ""] = raw.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = raw.includes("::") ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** What this isolate learnt from the object about an address: when it may stop asking, and until when it is throttled. */
interface Remembered {
  watchUntil: number;
  blockedUntil: number;
}
const remembered = new Map<string, Remembered>();

function remember(address: string, verdict: ThrottleVerdict, now: number): void {
  remembered.delete(address);
  if (verdict.watchUntil <= now) return;
  remembered.set(address, { watchUntil: verdict.watchUntil, blockedUntil: verdict.blocked ? now + verdict.retryAfterMs : 0 });
  if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value ?? "");
}

function limitsOf(env: Env): BucketLimits {
  const settings = runtimeConfig(env).settings;
  return { burst: settings.SIGN_IN_FAILURE_BURST, perMinute: settings.SIGN_IN_FAILURES_PER_HOUR / 60 };
}

/** The object that counts `key` (an address, or a name another throttle gives it: pairing-throttle.ts). */
export function throttleOf(env: Env, key: string): DurableObjectStub<SignInThrottle> {
  const namespace = env.SIGN_IN_THROTTLE as unknown as DurableObjectNamespace<SignInThrottle>;
  return namespace.get(namespace.idFromName(key));
}

/**
 * One attempt counted under every key of `keys` (an address, a person): `verify` says who
 * or what it found (undefined: nothing, a failure counted under each key). Throws
 * `throttled(ms)` when any key is throttled, whatever `verify` said.
 */
export async function throttledAttempt<T>(
  env: Env,
  keys: string[],
  verify: () => Promise<T | undefined>,
  throttled: (retryAfterMs: number) => Error,
  now = Date.now(),
): Promise<T | undefined> {
  // Told by the objects a moment ago: no need to ask again (or to verify) until then.
  const blockedMs = Math.max(0, ...keys.map((key) => (remembered.get(key)?.blockedUntil ?? 0) - now));
  if (blockedMs > 0) throw throttled(blockedMs);
  const who = await verify();
  if (who !== undefined && !keys.some((key) => (remembered.get(key)?.watchUntil ?? 0) > now)) return who;
  const limits = limitsOf(env);
  const verdicts = await Promise.all(keys.map((key) => (who === undefined ? throttleOf(env, key).fail(limits) : throttleOf(env, key).check(limits))));
  keys.forEach((key, i) => {
    const verdict = verdicts[i];
    if (verdict) remember(key, verdict, now);
  });
  const waitMs = Math.max(0, ...verdicts.map((verdict) => (verdict.blocked ? verdict.retryAfterMs : 0)));
  if (waitMs > 0) throw throttled(waitMs);
  return who;
}

/**
 * One sign-in attempt: `verify` says who the credential names (undefined: nobody).
 * Throws SignInThrottledError when the address is throttled, whatever `verify` said.
 */
export function throttledSignIn<T>(env: Env, headers: Headers, verify: () => Promise<T | undefined>, now = Date.now()): Promise<T | undefined> {
  return throttledAttempt(env, [clientAddress(headers)], verify, (ms) => new SignInThrottledError(ms), now);
}
