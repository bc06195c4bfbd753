// Token mode: named bearer tokens for API clients, and for the page a signed,
// HttpOnly, Secure, SameSite=Strict cookie (Hono's signed cookies) naming the
// user and the login it belongs to (`name|expires|loginId`), set by logging in
// with a token. The signature says we issued it; the user's account says whether
// that login is still on (src/users/logins.ts): signing out ends it.
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { z } from "zod";
import type { NamedToken } from "../config/auth";
import { LoginIdSchema } from "../users/logins";

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

/** The identity id of a token user: what their sessions, spend and logins are kept under. */
export const tokenUserId = (name: string) => `token:${name}`;

export interface Login {
  name: string;
  loginId: string;
  /** ms epoch */
  expiresAt: number;
}

/** A new login of `name`: a random id the account lists until it ends or expires. */
export function newLogin(name: string, now = Date.now()): Login {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  const loginId = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
  return { name, loginId, expiresAt: (Math.floor(now / 1000) + COOKIE_MAX_AGE_S) * 1000 };
}

export async function setLoginCookie(c: Context, secret: string, login: Login): Promise<void> {
  await setSignedCookie(c, SESSION_COOKIE, `${login.name}|${login.expiresAt / 1000}|${login.loginId}`, secret, {
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: "/",
    maxAge: COOKIE_MAX_AGE_S,
  });
}

// Signed by us, but still parsed: a cookie from before logins had ids (`name|expires`) is refused, not guessed at.
const CookieValueSchema = z
  .string()
  .transform((v) => v.split("|"))
  .pipe(
    z.tuple([
      z.string().min(1),
      z
        .string()
        .regex(/^\d{1,12}$/)
        .transform(Number),
      LoginIdSchema,
    ]),
  );

/**
 * The login a valid, unexpired cookie names, when its name still has a token. Whether
 * the login is still on is the account's to say (identify.ts asks it).
 */
export async function loginFromCookie(c: Context, secret: string, tokens: NamedToken[], now = Date.now()): Promise<Login | undefined> {
  const parsed = CookieValueSchema.safeParse(await getSignedCookie(c, secret, SESSION_COOKIE));
  if (!parsed.success) return undefined;
  const [name, expires, loginId] = parsed.data;
  if (expires * 1000 <= now) return undefined;
  // A name removed from ACCESS_TOKENS is logged out at once.
  return tokens.some((t) => t.name === name) ? { name, loginId, expiresAt: expires * 1000 } : undefined;
}

export function clearLoginCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true, httpOnly: true, sameSite: "Strict" });
}
