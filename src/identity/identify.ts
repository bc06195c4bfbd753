// The one middleware that decides who is calling, for every route and the
// WebSocket upgrade, from AUTH_MODE (see auth-config.ts). A deployment without a
// usable mode answers 503 naming what to set; a caller without a valid identity
// answers 401, and one whose address guessed tokens too often 429
// (sign-in-throttle.ts). Downstream code reads `c.var.identity` and nothing else.
import type { Context, MiddlewareHandler } from "hono";
import type { Env } from "../config/env";
import { runtimeConfig } from "../config/runtime-config";
import { accessVerifier, AccessTokenError } from "./access-jwt";
import { LOOPBACK_HOSTS, misconfiguredMessage, type AuthConfig, type AuthMode } from "../config/auth";
import { userAccount } from "../users/account";
import { throttledSignIn } from "./sign-in-throttle";
import { bearerToken, loginFromCookie, nameForToken, tokenUserId } from "./tokens";
import { RequestError } from "../shared/errors";
import type { ErrorCode } from "../shared/error-codes";

export interface Identity {
  /** Stable and unique across modes: what sessions and spend are keyed by. */
  id: string;
  /** For display: the email, token name, or "local". */
  name: string;
  mode: AuthMode;
}

export type ActiveAuth = Exclude<AuthConfig, { mode: "misconfigured" }>;

export interface IdentityVariables {
  identity: Identity;
  auth: ActiveAuth;
  /** Made at the edge (Cloudflare's `cf-ray` when there is one) and carried into the session's logs. */
  requestId: string;
  /** The code of the error the request was answered with, for its log line (src/http/errors.ts). */
  errorCode?: ErrorCode;
}

export type AppEnv = { Bindings: Env; Variables: IdentityVariables };

export const ACCESS_JWT_HEADER = "Cf-Access-Jwt-Assertion";

export function authConfigOf(env: Env): AuthConfig {
  return runtimeConfig(env).auth;
}

export function isLoopback(c: Context): boolean {
  return LOOPBACK_HOSTS.has(new URL(c.req.url).hostname);
}

async function resolve(c: Context, auth: ActiveAuth): Promise<Identity | { code: ErrorCode; message: string }> {
  switch (auth.mode) {
    case "none":
      return { id: "local", name: "local", mode: "none" };
    case "access": {
      const token = c.req.header(ACCESS_JWT_HEADER);
      if (!token) return { code: "unauthenticated", message: "sign in through Cloudflare Access (no Cf-Access-Jwt-Assertion header)" };
      try {
        const claims = await accessVerifier(auth).verify(token);
        return { id: `access:${claims.subject}`, name: claims.email ?? claims.subject, mode: "access" };
      } catch (error) {
        return { code: "unauthenticated", message: error instanceof AccessTokenError ? error.message : "the Access token could not be verified" };
      }
    }
    case "token": {
      const presented = bearerToken(c.req.header("authorization"));
      if (presented !== undefined) {
        // Throws SignInThrottledError (429) for an address that guessed too often.
        const name = await throttledSignIn(c.env, c.req.raw.headers, () => nameForToken(auth.tokens, presented));
        return name ? { id: tokenUserId(name), name, mode: "token" } : { code: "bad_token", message: "the bearer token is not valid" };
      }
      // A forged cookie is not counted as a guess: its HMAC cannot be guessed, and a stale
      // cookie in a signed-out browser must not throttle the person behind it.
      const login = await loginFromCookie(c, auth.cookieSecret, auth.tokens);
      if (!login) return { code: "unauthenticated", message: "sign in with a token (Authorization: Bearer, or the page's login form)" };
      // One small call per cookie request (the page's, not API clients'): a signed-out login must end everywhere at once.
      if (!(await userAccount(c.env, tokenUserId(login.name)).loginActive(login.loginId))) {
        return { code: "unauthenticated", message: "this sign-in has ended (signed out): sign in again" };
      }
      return { id: tokenUserId(login.name), name: login.name, mode: "token" };
    }
  }
}

/** `optional`: routes that work signed out (login, logout) still get the config checks. */
export function identify(options: { optional?: (c: Context) => boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const auth = authConfigOf(c.env);
    const host = new URL(c.req.url).host;
    // Fail closed: a bad configuration, or no mode outside loopback, serves nothing.
    if (auth.mode === "misconfigured" || (auth.mode === "none" && !isLoopback(c))) {
      throw new RequestError("auth_not_configured", misconfiguredMessage(auth, host));
    }
    c.set("auth", auth);
    // A throttled sign-in throws SignInThrottledError: the Worker's onError answers 429 with Retry-After.
    const who = await resolve(c, auth);
    if ("id" in who) c.set("identity", who);
    else if (!options.optional?.(c)) throw new RequestError(who.code, who.message, { authMode: auth.mode });
    await next();
  };
}
