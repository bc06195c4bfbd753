// Throttles of machine pairing (src/http/machines.ts), on the sign-in throttle's objects
// (SignInThrottle, one per key):
//
// - Looking a code up and approving it are one kind of attempt: a code that names no
//   waiting pairing is a failed guess, counted against the client's address and against
//   the signed-in person (so spreading guesses over addresses gains nothing), with the
//   limits of wrong tokens but in buckets of their own: wrong codes do not lock an
//   address (an office behind one NAT) out of signing in. Past SIGN_IN_FAILURE_BURST
//   either answers 429, the right code too. A pairing code is 8 characters (one in 8.5e11) and lives 10 minutes: at 10
//   guesses, then 30 an hour, a guess-everything run is hopeless.
// - Starting a pairing needs no identity (the bridge has none yet), so each start is a
//   hold for the code's lifetime: at most PAIRINGS_PER_ADDRESS from one address and
//   PAIRINGS_PENDING_MAX from all together are in flight. Each start makes a
//   PairingCode object with storage and an alarm; these caps bound how many exist.
import type { Settings } from "../config/settings";
import { RequestError } from "../shared/errors";
import { clientAddress, SignInThrottledError, throttledAttempt, throttleOf } from "./sign-in-throttle";
import type { Env } from "../config/env";

/** The buckets of wrong codes, by address and by person; sign-in's are named by the bare address, so none collides. */
const guessKeys = (address: string, identityId: string) => [`pairing-guesses:${address}`, `pairing-guesses:person:${identityId}`];
/** The holds of pairings started from one address, and from all. */
const startsKey = (address: string) => `pairing-starts:${address}`;
const ALL_STARTS = "pairing-starts:*";

/**
 * A look-up or approval of a pairing code by `identityId`: `attempt` answers what it found
 * (undefined: no waiting pairing, a failed guess). Throws SignInThrottledError (429) while
 * the address or the person is throttled.
 */
export function throttledPairingAttempt<T>(env: Env, headers: Headers, identityId: string, attempt: () => Promise<T | undefined>): Promise<T | undefined> {
  return throttledAttempt(
    env,
    guessKeys(clientAddress(headers), identityId),
    attempt,
    (ms) => new SignInThrottledError(ms, "wrong pairing codes from your address or account"),
  );
}

/** Counts a pairing start that lives `windowMs`; throws 429 rate_limited, with when to retry, past either cap. */
export async function admitPairingStart(
  env: Env,
  headers: Headers,
  settings: Pick<Settings, "PAIRINGS_PER_ADDRESS" | "PAIRINGS_PENDING_MAX">,
  windowMs: number,
): Promise<void> {
  // The address first: a flood from one address is refused before it takes the deployment's room.
  const own = await throttleOf(env, startsKey(clientAddress(headers))).hold(settings.PAIRINGS_PER_ADDRESS, windowMs);
  if (own.blocked) throw refused("Too many pairings started from your address", own.retryAfterMs);
  const all = await throttleOf(env, ALL_STARTS).hold(settings.PAIRINGS_PENDING_MAX, windowMs);
  if (all.blocked) throw refused("Too many pairings are waiting for approval on this deployment", all.retryAfterMs);
}

const refused = (what: string, retryAfterMs: number) =>
  new RequestError("rate_limited", `${what}: try again in ${Math.ceil(retryAfterMs / 1000)} s.`, { retryAfterMs });
