// The OAuth 2.1 authorization server in front of `/mcp` (@cloudflare/workers-oauth-provider):
// metadata (RFC 8414, RFC 9728), dynamic client registration, client ID metadata documents,
// the token endpoint with refresh and revocation (RFC 7009), and the token check of every
// `/mcp` request. Our consent page (src/http/connect.ts) is its authorize endpoint; every other
// request falls through to the Hono app unchanged. Tokens are bound to `<origin>/mcp`, so one
// provider is kept per origin (or only PUBLIC_ORIGIN's when it is set).
import { AuthorizationError, getOAuthApi, OAuthProvider, type OAuthHelpers, type OAuthProviderOptions } from "@cloudflare/workers-oauth-provider";
import { LOOPBACK_HOSTS } from "../config/auth";
import type { Env } from "../config/env";
import { runtimeConfig } from "../config/runtime-config";
import { errorJson } from "../shared/error-body";
import { forwardToApp } from "./forward";
import { loggedOAuth, type OAuthRoute } from "./oauth-log";

export const GATEWAY_ROUTES = { mcp: "/mcp", authorize: "/connect/authorize", token: "/connect/token", register: "/connect/register" } as const;

const DAY = 86_400;
/** Origins served at once by one isolate; a request naming a fifth evicts the oldest provider. */
const MAX_ORIGINS = 4;

type FetchHandler = { fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> };

/**
 * The origin the gateway serves this request at; undefined when MCP_GATEWAY is off, the host is
 * not PUBLIC_ORIGIN's, or it is plain http on a host other than this computer (OAuth 2.1 and
 * the provider accept no other: the chat keeps working there, /mcp is 404).
 */
export function gatewayOrigin(env: Env, url: string | URL): string | undefined {
  const { settings } = runtimeConfig(env);
  if (!settings.MCP_GATEWAY) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname))) return undefined;
  const origin = parsed.origin;
  if (settings.PUBLIC_ORIGIN !== undefined && new URL(settings.PUBLIC_ORIGIN).origin !== origin) return undefined;
  return origin;
}

/** The paths the provider answers itself (besides `/mcp`): without KV they answer 503, gateway off 404. */
function isGatewayPath(path: string): boolean {
  return (
    path === GATEWAY_ROUTES.mcp ||
    path.startsWith(`${GATEWAY_ROUTES.mcp}/`) ||
    path.startsWith("/.well-known/oauth-") ||
    path === GATEWAY_ROUTES.token ||
    path === GATEWAY_ROUTES.register
  );
}

/** The authorization server's endpoint a path is (its requests get a log line: oauth-log.ts). */
function oauthRoute(path: string): Exclude<OAuthRoute, "revoke"> | undefined {
  if (path === GATEWAY_ROUTES.authorize) return "authorize";
  if (path === GATEWAY_ROUTES.token) return "token";
  if (path === GATEWAY_ROUTES.register) return "register";
  return undefined;
}

function options(env: Env, origin: string, defaultHandler: FetchHandler): OAuthProviderOptions<Env> {
  const { settings, logger } = runtimeConfig(env);
  return {
    apiRoute: GATEWAY_ROUTES.mcp,
    apiHandler: forwardToApp,
    defaultHandler,
    authorizeEndpoint: GATEWAY_ROUTES.authorize,
    tokenEndpoint: GATEWAY_ROUTES.token,
    clientRegistrationEndpoint: GATEWAY_ROUTES.register,
    resourceMetadata: { resource: `${origin}${GATEWAY_ROUTES.mcp}`, authorization_servers: [origin], resource_name: "edgehost" },
    scopesSupported: ["mcp", "offline_access"],
    requiredScopes: ["mcp"],
    accessTokenTTL: settings.GATEWAY_ACCESS_TOKEN_TTL,
    refreshTokenTTL: 90 * DAY,
    refreshTokenIdleTTL: 30 * DAY,
    clientRegistrationTTL: 90 * DAY,
    clientIdMetadataDocumentEnabled: true,
    allowPrivateUseRedirectUris: false,
    // The refusal goes to the client as the provider wrote it; the log keeps why (never a token).
    onError: ({ code, status, internal }) => {
      logger.warn("oauth refused", { code, status, reason: internal?.reason });
    },
  };
}

/** For routes that act on grants (consent, Disconnect): the provider's helpers for this origin. */
export function oauthHelpers(env: Env, origin: string): OAuthHelpers {
  return getOAuthApi(options(env, origin, { fetch: () => new Response(null, { status: 404 }) }), env);
}

export type { AuthRequest, OAuthHelpers } from "@cloudflare/workers-oauth-provider";

/**
 * Why the provider refused an authorization request: `redirectTo` only when it validated the
 * client's redirect URI (then the error goes back to the client), else show it here, never redirect.
 */
export function authorizationRefusal(error: unknown): { redirectTo?: string; description: string } {
  if (error instanceof AuthorizationError) return { redirectTo: error.redirectTo, description: error.description };
  return { description: "the authorization request could not be read" };
}

const providers = new Map<string, OAuthProvider<Env>>();

function providerFor(env: Env, origin: string, app: FetchHandler): OAuthProvider<Env> {
  // The settings that shape a provider are part of its key: a test's env with other values gets its own.
  const key = `${origin} ${runtimeConfig(env).settings.GATEWAY_ACCESS_TOKEN_TTL}`;
  let provider = providers.get(key);
  if (!provider) {
    provider = new OAuthProvider<Env>(options(env, origin, app));
    if (providers.size >= MAX_ORIGINS) providers.delete(providers.keys().next().value as string);
    providers.set(key, provider);
  }
  return provider;
}

/**
 * The Worker's default export around the Hono app: MCP_GATEWAY on → the provider (whose
 * default handler is the app), off → the app alone, where the gateway's paths are 404.
 */
export function withGateway(app: FetchHandler): FetchHandler {
  return {
    fetch(request, env, ctx) {
      const origin = gatewayOrigin(env, request.url);
      if (origin === undefined) return app.fetch(request, env, ctx);
      if (!env.OAUTH_KV) {
        if (!isGatewayPath(new URL(request.url).pathname)) return app.fetch(request, env, ctx);
        return errorJson("auth_not_configured", "/mcp needs the OAUTH_KV binding (docs/deploying.md)");
      }
      const provider = providerFor(env, origin, app);
      const route = oauthRoute(new URL(request.url).pathname);
      if (!route) return provider.fetch(request, env, ctx);
      return loggedOAuth(request, route, (onward) => provider.fetch(onward, env, ctx), runtimeConfig(env).logger);
    },
  };
}
