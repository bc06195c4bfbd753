// The `requestState` of an `input_required` answer (MCP 2026-07-28): opaque to the client,
// and all the bridge needs to find the call it held for it. It names the held call, the
// round and when it expires; an HMAC-SHA256 under a key of this bridge process binds that
// to the user, the server and the request (method and params), none of which is written
// in the state itself. A changed byte, another user's or server's state, a state echoed
// with another request or after its time fails here; a replayed one names a round
// already answered, which the held call refuses (modern-call.ts).
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a client has to answer the questions of one round. */
export const INPUT_WAIT_MS = 10 * 60_000;

/** A key per process: a held call does not outlive the bridge either. */
const KEY = randomBytes(32);

export interface StateBinding {
  user: string;
  server: string;
  method: string;
  /** The request's params: everything but `_meta`, `inputResponses` and `requestState` is bound. */
  params: Record<string, unknown> | undefined;
}

export interface StateClaim {
  call: string;
  round: number;
  expires: number;
}

/** What the state binds of the request: its method and params, without what changes from round to round. */
function requestDigest(binding: StateBinding): string {
  const { _meta, inputResponses, requestState, ...rest } = binding.params ?? {};
  return createHash("sha256").update(binding.method).update("\0").update(JSON.stringify(rest)).digest("base64url");
}

function mac(body: string, binding: StateBinding): Buffer {
  return createHmac("sha256", KEY)
    .update(`requestState\0${body}\0${binding.user}\0${binding.server}\0${requestDigest(binding)}`)
    .digest();
}

export function mintState(claim: StateClaim, binding: StateBinding): string {
  const body = Buffer.from(`${claim.call}.${claim.round}.${claim.expires}`).toString("base64url");
  return `v1.${body}.${mac(body, binding).toString("base64url")}`;
}

/** The claim a state makes, once its MAC holds for this binding and it has not expired; undefined otherwise. */
export function verifyState(state: string, binding: StateBinding, now = Date.now()): StateClaim | undefined {
  const [version, body, tag, ...extra] = state.split(".");
  if (version !== "v1" || !body || !tag || extra.length > 0) return undefined;
  const given = Buffer.from(tag, "base64url");
  const expected = mac(body, binding);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const [call, round, expires] = Buffer.from(body, "base64url").toString("utf8").split(".");
  const claim = { call: call ?? "", round: Number(round), expires: Number(expires) };
  if (!claim.call || !Number.isSafeInteger(claim.round) || !(claim.expires > now)) return undefined;
  return claim;
}
