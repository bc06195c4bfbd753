// Cloudflare Access: the `Cf-Access-Jwt-Assertion` JWT, verified with Hono's
// `verifyWithJwks` (RS256 only, issuer and audience checked) against the team's
// keys. Keys are cached per isolate; an unknown `kid` (a key rotation) refetches
// them, at most once a minute, so a flood of forged kids cannot hammer the team's
// certs endpoint.
import { Jwt } from "hono/utils/jwt";
import type { HonoJsonWebKey } from "hono/utils/jwt/jws";

const REFETCH_UNKNOWN_KID_MS = 60_000;
// Access rotates keys every few weeks and keeps the old one valid meanwhile.
const MAX_KEY_AGE_MS = 60 * 60_000;

interface KeySet {
  keys: HonoJsonWebKey[];
  fetchedAt: number;
}

export interface AccessClaims {
  subject: string;
  email?: string;
}

export class AccessTokenError extends Error {}

export class AccessVerifier {
  private keySet?: KeySet;
  private fetching?: Promise<KeySet>;
  /** JWKS downloads so far (tests assert the once-a-minute bound with it). */
  fetches = 0;

  constructor(private readonly options: { jwksUrl: string; issuer: string; audience: string[]; fetch?: typeof fetch; now?: () => number }) {}

  async verify(token: string): Promise<AccessClaims> {
    let kid: unknown;
    try {
      kid = Jwt.decode(token).header.kid;
    } catch {
      throw new AccessTokenError("the Access token is not a JWT");
    }
    const keys = await this.keysFor(typeof kid === "string" ? kid : undefined);
    let payload: Record<string, unknown>;
    try {
      payload = (await Jwt.verifyWithJwks(token, {
        keys,
        allowedAlgorithms: ["RS256"],
        verification: { iss: this.options.issuer, aud: this.options.audience },
      })) as Record<string, unknown>;
    } catch (error) {
      throw new AccessTokenError(`the Access token was refused (${error instanceof Error ? error.name : "invalid"})`);
    }
    // Hono accepts a token without `exp`; Access always sets one, so its absence is a forgery.
    if (typeof payload.exp !== "number") throw new AccessTokenError("the Access token has no expiry");
    const email = typeof payload.email === "string" && payload.email ? payload.email : undefined;
    // Service tokens carry no email: their `common_name` (the client id) names them.
    const subject =
      email ?? (typeof payload.sub === "string" && payload.sub ? payload.sub : typeof payload.common_name === "string" ? payload.common_name : "");
    if (!subject) throw new AccessTokenError("the Access token names nobody");
    return { subject, email };
  }

  private async keysFor(kid: string | undefined): Promise<HonoJsonWebKey[]> {
    const now = (this.options.now ?? Date.now)();
    const current = this.keySet;
    const known = current?.keys.some((k) => k.kid === kid);
    const stale = current === undefined || now - current.fetchedAt > MAX_KEY_AGE_MS;
    const mayRefetch = current === undefined || now - current.fetchedAt >= REFETCH_UNKNOWN_KID_MS;
    if (current && !stale && (known || !mayRefetch)) return current.keys;
    this.fetching ??= this.download().finally(() => (this.fetching = undefined));
    try {
      this.keySet = await this.fetching;
    } catch (error) {
      // Keep serving the keys we had: the certs endpoint being down must not log everyone out.
      if (current) return current.keys;
      throw error;
    }
    return this.keySet.keys;
  }

  private async download(): Promise<KeySet> {
    this.fetches += 1;
    const response = await (this.options.fetch ?? fetch)(this.options.jwksUrl, { headers: { accept: "application/json" } });
    if (!response.ok) throw new AccessTokenError(`the Access keys could not be fetched (HTTP ${response.status})`);
    const body = (await response.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new AccessTokenError("the Access keys response has no keys");
    const keys = body.keys.filter((k): k is HonoJsonWebKey => typeof k === "object" && k !== null && (k as { kty?: unknown }).kty === "RSA");
    return { keys, fetchedAt: (this.options.now ?? Date.now)() };
  }
}

// One verifier per team per isolate, so the key cache outlives a request.
const verifiers = new Map<string, AccessVerifier>();

export function accessVerifier(options: { jwksUrl: string; issuer: string; audience: string[] }): AccessVerifier {
  const key = `${options.jwksUrl} ${options.issuer} ${options.audience.join(",")}`;
  let verifier = verifiers.get(key);
  if (!verifier) {
    verifier = new AccessVerifier(options);
    verifiers.set(key, verifier);
  }
  return verifier;
}
