// Token mode: named bearer tokens for API clients, and for the page a signed,
// HttpOnly, Secure, SameSite=Strict cookie (Hono's signed cookies) naming the
// user, set by logging in with a token.
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import type { NamedToken } from "../config/auth";

export const SESSION_COOKIE = "edgehost_session";
const COOKIE_MAX_AGE_S = 7 * 24 * 3600;

const encoder = new TextEncoder();

async function digest(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(value));
}

/** The name whose token this is; compared in constant time over digests (equal length whatever the input). */
export async function nameForToken(tokens: NamedToken[], presented: string): Promise<string | undefined> {
  const given = await digest(presented);
  let found: string | undefined;
  for (const { name, hash } of await tokenDigests(tokens)) {
    // Every token is compared, so the time taken does not tell which one matched.
    if (crypto.subtle.timingSafeEqual(given, hash)) found ??= name;
  }
  return found;
}

// The configured tokens' digests, made once per parsed configuration, not on every request.
const digests = new WeakMap<NamedToken[], Promise<{ name: string; hash: ArrayBuffer }[]>>();

function tokenDigests(tokens: NamedToken[]): Promise<{ name: string; hash: ArrayBuffer }[]> {
  let made = digests.get(tokens);
  if (!made) {
    made = Promise.all(tokens.map(async ({ name, token }) => ({ name, hash: await digest(token) })));
    digests.set(tokens, made);
  }
  return made;
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

export async function setLoginCookie(c: Context, secret: string, name: string, now = Date.now()): Promise<void> {
  const expires = Math.floor(now / 1000) + COOKIE_MAX_AGE_S;
  await setSignedCookie(c, SESSION_COOKIE, `${name}|${expires}`, secret, {
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: "/",
    maxAge: COOKIE_MAX_AGE_S,
  });
}

/** The logged-in name from a valid, unexpired cookie whose name still has a token. */
export async function nameFromCookie(c: Context, secret: string, tokens: NamedToken[], now = Date.now()): Promise<string | undefined> {
  const value = await getSignedCookie(c, secret, SESSION_COOKIE);
  if (typeof value !== "string") return undefined;
  const [name, expires] = value.split("|");
  if (!name || !expires || Number(expires) * 1000 <= now) return undefined;
  // A name removed from ACCESS_TOKENS is logged out at once.
  return tokens.some((t) => t.name === name) ? name : undefined;
}

export function clearLoginCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true, httpOnly: true, sameSite: "Strict" });
}
