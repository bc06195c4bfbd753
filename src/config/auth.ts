// How this deployment decides who is calling, parsed once from the environment
// with zod. Anything incomplete or invalid becomes `misconfigured` with a sentence
// naming the variables to set: the Worker then answers 503 (fail closed), never
// falls back to an open mode.
import { z } from "zod";

export type AuthMode = "access" | "token" | "none";

export interface NamedToken {
  name: string;
  token: string;
}

export type AuthConfig =
  | { mode: "access"; issuer: string; jwksUrl: string; audience: string[]; allowedOrigins: string[] }
  | { mode: "token"; tokens: NamedToken[]; cookieSecret: string; allowedOrigins: string[] }
  /** `explicit`: AUTH_MODE=none was set; otherwise nothing was configured (still loopback-only). */
  | { mode: "none"; explicit: boolean; allowedOrigins: string[] }
  | { mode: "misconfigured"; problem: string };

const MIN_TOKEN_CHARS = 16;
const TOKEN_NAME = /^[A-Za-z0-9_.@-]{1,64}$/;
export const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

const blank = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const text = z.preprocess(blank, z.string().optional());

export const AuthEnvSchema = z.object({
  AUTH_MODE: z.preprocess((v) => blank(v)?.toLowerCase(), z.enum(["access", "token", "none"], { message: 'must be "access", "token" or "none"' }).optional()),
  ACCESS_TEAM_DOMAIN: text,
  ACCESS_AUD: text,
  ACCESS_TOKENS: text,
  COOKIE_SECRET: text,
  ALLOWED_ORIGINS: text,
});

const SET_ONE =
  'set AUTH_MODE to "access" (with ACCESS_TEAM_DOMAIN and ACCESS_AUD, behind Cloudflare Access) or "token" (with the secret ACCESS_TOKENS=name:token,...)';

/** The origin of an Access team: `myteam`, `myteam.cloudflareaccess.com` or a full URL (http only for loopback, for tests). */
export function teamOrigin(value: string): string | undefined {
  const withScheme = /^https?:\/\//i.test(value) ? value : `https://${value.includes(".") ? value : `${value}.cloudflareaccess.com`}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return url.origin;
}

function parseTokens(raw: string): NamedToken[] | string {
  const tokens: NamedToken[] = [];
  for (const pair of raw
    .split(/[,\n]/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const colon = pair.indexOf(":");
    const name = colon > 0 ? pair.slice(0, colon).trim() : "";
    const token = colon > 0 ? pair.slice(colon + 1).trim() : "";
    // Never echo a token: only its position and the name.
    if (!TOKEN_NAME.test(name)) return `ACCESS_TOKENS entry ${tokens.length + 1} must be name:token with a name of letters, digits, '_', '.', '@' or '-'`;
    if (token.length < MIN_TOKEN_CHARS) return `ACCESS_TOKENS: the token of "${name}" is shorter than ${MIN_TOKEN_CHARS} characters`;
    if (tokens.some((t) => t.name === name)) return `ACCESS_TOKENS: "${name}" appears twice`;
    if (tokens.some((t) => t.token === token)) return `ACCESS_TOKENS: two names share one token`;
    tokens.push({ name, token });
  }
  return tokens.length > 0 ? tokens : "ACCESS_TOKENS has no name:token pair";
}

function parseOrigins(raw: string | undefined): string[] | string {
  const origins: string[] = [];
  for (const item of (raw ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean)) {
    try {
      const url = new URL(item);
      if (url.origin === "null" || url.origin !== item.replace(/\/$/, "")) return `ALLOWED_ORIGINS: "${item}" is not an origin (scheme://host[:port], no path)`;
      origins.push(url.origin);
    } catch {
      return `ALLOWED_ORIGINS: "${item}" is not an origin (scheme://host[:port])`;
    }
  }
  return origins;
}

export function readAuthConfig(env: Record<string, unknown>): AuthConfig {
  const parsed = AuthEnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { mode: "misconfigured", problem: `${String(issue?.path[0] ?? "AUTH_MODE")} ${issue?.message ?? "is invalid"}: ${SET_ONE}` };
  }
  const vars = parsed.data;
  const allowedOrigins = parseOrigins(vars.ALLOWED_ORIGINS);
  if (typeof allowedOrigins === "string") return { mode: "misconfigured", problem: allowedOrigins };
  switch (vars.AUTH_MODE) {
    case "access": {
      const missing = [!vars.ACCESS_TEAM_DOMAIN && "ACCESS_TEAM_DOMAIN", !vars.ACCESS_AUD && "ACCESS_AUD"].filter(Boolean);
      if (missing.length > 0)
        return { mode: "misconfigured", problem: `AUTH_MODE is "access" but ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set` };
      const issuer = teamOrigin(vars.ACCESS_TEAM_DOMAIN ?? "");
      if (!issuer) return { mode: "misconfigured", problem: "ACCESS_TEAM_DOMAIN must be your team name or <team>.cloudflareaccess.com" };
      const audience = (vars.ACCESS_AUD ?? "")
        .split(",")
        .map((a) => a.trim())
        .filter(Boolean);
      return { mode: "access", issuer, jwksUrl: `${issuer}/cdn-cgi/access/certs`, audience, allowedOrigins };
    }
    case "token": {
      if (!vars.ACCESS_TOKENS) return { mode: "misconfigured", problem: 'AUTH_MODE is "token" but the secret ACCESS_TOKENS (name:token,...) is not set' };
      const tokens = parseTokens(vars.ACCESS_TOKENS);
      if (typeof tokens === "string") return { mode: "misconfigured", problem: tokens };
      if (vars.COOKIE_SECRET !== undefined && vars.COOKIE_SECRET.length < 32)
        return { mode: "misconfigured", problem: "COOKIE_SECRET must be at least 32 characters" };
      // Derived from the tokens unless set: rotating a token then also ends every page login.
      return { mode: "token", tokens, cookieSecret: vars.COOKIE_SECRET ?? `edgehost-cookie:${vars.ACCESS_TOKENS}`, allowedOrigins };
    }
    default:
      return { mode: "none", explicit: vars.AUTH_MODE === "none", allowedOrigins };
  }
}

/** What a deployment without a usable mode answers on every route. */
export function misconfiguredMessage(config: AuthConfig, host: string): string {
  if (config.mode === "misconfigured") return `Sign-in is misconfigured: ${config.problem}. Nothing is served until it is fixed.`;
  return `This deployment has no sign-in configured and is reached as ${host}, not localhost: ${SET_ONE}. AUTH_MODE "none" works only on localhost.`;
}
