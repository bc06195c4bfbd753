// /connect/authorize: the consent step of the /mcp authorization server (src/gateway/auth-server.ts).
// The person is identified as on every page route (Access, or the token mode's login cookie or
// bearer); the page names the client, where its tokens go and what it will reach; approving lists
// the app in the account under a fresh generation, activates its object, then lets the provider
// issue the code. Errors the provider can safely send back go to the client's redirect URI; any
// other is shown here and never redirected.
import { type Context, Hono } from "hono";
import { z } from "zod";
import { runtimeConfig } from "../config/runtime-config";
import { connectApp } from "../gateway/apps";
import { type AuthRequest, authorizationRefusal, gatewayOrigin, type OAuthHelpers, oauthHelpers } from "../gateway/auth-server";
import { appIdFor, providerUserId, type GrantProps } from "../gateway/props";
import type { AppEnv, Identity } from "../identity/identify";
import { throttledSignIn } from "../identity/sign-in-throttle";
import { nameForToken, newLogin, setLoginCookie, tokenUserId } from "../identity/tokens";
import { deploymentNamesFor } from "../servers/lookup";
import { RequestError } from "../shared/errors";
import { userAccount } from "../users/account";
import { bouncePage, CONNECT_CSP, consentPage, errorPage, signInPage, type ReachGroups } from "./connect-pages";

export const connect = new Hono<AppEnv>();

/** Routes a signed-out browser may reach (identify lets them through without an identity). */
export const CONNECT_SIGNED_OUT = (method: string, path: string) =>
  (method === "GET" && path === "/connect/authorize") || (method === "POST" && path === "/connect/sign-in");

const BOUNCED = "_edgehost_bounce";

function html(c: Context<AppEnv>, body: string, status: 200 | 400 | 401 | 503, headers?: Headers): Response {
  const response = c.html(body, status);
  // The provider's consent headers: its binding cookie (Set-Cookie kept one by one) and its no-framing rules.
  // (Iterating Headers yields each Set-Cookie on its own.)
  for (const [name, value] of headers ?? []) {
    if (name === "set-cookie") response.headers.append(name, value);
    else response.headers.set(name, value);
  }
  response.headers.set("Content-Security-Policy", CONNECT_CSP);
  response.headers.set("Cache-Control", "no-store");
  response.headers.set("X-Frame-Options", "DENY");
  return response;
}

/** The provider's helpers for this request, or a 404 when the gateway is off here. */
function helpersFor(c: Context<AppEnv>): { origin: string; helpers: OAuthHelpers } | Response {
  const origin = gatewayOrigin(c.env, c.req.url);
  if (origin === undefined) throw new RequestError("not_found", `no route ${c.req.method} ${c.req.path}`);
  if (!c.env.OAUTH_KV) return html(c, errorPage("This deployment's /mcp is not set up (it needs its OAUTH_KV store)."), 503);
  return { origin, helpers: oauthHelpers(c.env, origin) };
}

/** A refusal of the request itself: back to the client when the provider says that is safe, else a page here. */
function refused(c: Context<AppEnv>, error: unknown): Response {
  const refusal = authorizationRefusal(error);
  if (refusal.redirectTo) return c.redirect(refusal.redirectTo, 302);
  c.set("errorCode", "consent_failed");
  return html(c, errorPage(refusal.description), 400);
}

async function reachOf(c: Context<AppEnv>, identity: Identity): Promise<ReachGroups> {
  const deployment = deploymentNamesFor(c.env, { mode: identity.mode, user: { id: identity.id, name: identity.name } });
  const userServersOffered = runtimeConfig(c.env).settings.MCP_GATEWAY_USER_SERVERS;
  if (!userServersOffered) return { deployment, servers: [], signedIn: [], machines: [], userServersOffered };
  const account = userAccount(c.env, identity.id);
  const [servers, signedIn, machines] = await Promise.all([account.listServers(), account.oauthSignedIn(), account.listMachines()]);
  return {
    deployment,
    servers: servers.filter((s) => !s.disabled).map((s) => s.name),
    signedIn,
    machines: machines.map((m) => ({ name: m.name, online: m.online })),
    userServersOffered,
  };
}

connect.get("/authorize", async (c) => {
  const found = helpersFor(c);
  if (found instanceof Response) return found;
  let request: AuthRequest;
  try {
    request = await found.helpers.parseAuthRequest(c.req.raw);
  } catch (error) {
    return refused(c, error);
  }
  const identity = c.get("identity") as Identity | undefined;
  if (!identity) {
    if (c.var.auth.mode !== "token") return html(c, errorPage("Sign in to edgehost first, then start again from the app."), 401);
    const url = new URL(c.req.url);
    if (!url.searchParams.has(BOUNCED)) {
      url.searchParams.set(BOUNCED, "1");
      return html(c, bouncePage(`${url.pathname}${url.search}`), 200);
    }
    return html(c, signInPage({ back: `${url.pathname}${url.search}` }), 401);
  }
  try {
    const description = await found.helpers.describeConsent(request);
    const { handle, headers } = await found.helpers.beginConsent(request);
    const view = {
      handle,
      person: identity.name,
      clientName: description.clientName,
      clientId: description.clientId,
      clientDomain: description.clientDomain,
      redirectHost: description.redirectHost,
      redirectIsLoopback: description.redirectIsLoopback,
      host: new URL(found.origin).host,
      reach: await reachOf(c, identity),
    };
    return html(c, consentPage(view), 200, headers);
  } catch (error) {
    return refused(c, error);
  }
});

const DecisionSchema = z.object({
  handle: z.string().min(1).max(2048),
  decision: z.enum(["approve", "deny"]),
  sampling: z.literal("on").optional(),
});

/** The scopes granted: `mcp` always, and offline_access (refresh tokens) when the client asked for it. */
const grantedScopes = (requested: string[]) => (requested.includes("offline_access") ? ["mcp", "offline_access"] : ["mcp"]);

connect.post("/authorize", async (c) => {
  const found = helpersFor(c);
  if (found instanceof Response) return found;
  const form = DecisionSchema.safeParse(await c.req.parseBody());
  if (!form.success) {
    c.set("errorCode", "consent_failed");
    return html(c, errorPage("The consent form was incomplete."), 400);
  }
  const identity = c.var.identity;
  const { handle, decision, sampling } = form.data;
  try {
    if (decision === "deny") {
      const denied = await found.helpers.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const approved = await found.helpers.approveConsent(c.req.raw, handle);
    const { request } = approved;
    const description = await found.helpers.describeConsent(request);
    const appId = await appIdFor(identity.id, request.clientId, request.redirectUri);
    const scope = grantedScopes(request.scope);
    const gen = await connectApp(c.env, identity, {
      appId,
      clientId: request.clientId,
      clientName: description.clientName,
      redirectHost: description.redirectHost,
      scopes: scope,
      sampling: sampling === "on",
    });
    if (gen === undefined) return html(c, errorPage("You have connected too many apps: disconnect one in Connected apps first."), 400);
    const props: GrantProps = { v: 1, identity, appId, gen, client: { id: request.clientId, name: description.clientName } };
    const { redirectTo } = await found.helpers.completeAuthorization({
      request,
      userId: await providerUserId(identity.id),
      scope,
      metadata: { appId },
      props,
    });
    const headers = new Headers(approved.headers);
    headers.set("Location", redirectTo);
    return new Response(null, { status: 302, headers });
  } catch (error) {
    return refused(c, error);
  }
});

const SignInSchema = z.object({ token: z.string().min(1).max(512), back: z.string().startsWith("/connect/authorize?").max(8192) });

/** The sign-in form of the consent flow (token mode): a login like the page's, then back to the request. */
connect.post("/sign-in", async (c) => {
  if (gatewayOrigin(c.env, c.req.url) === undefined) throw new RequestError("not_found", `no route ${c.req.method} ${c.req.path}`);
  const config = c.var.auth;
  const form = SignInSchema.safeParse(await c.req.parseBody());
  if (config.mode !== "token" || !form.success) return html(c, errorPage("Start again from the app."), 400);
  const name = await throttledSignIn(c.env, c.req.raw.headers, () => nameForToken(config.tokens, form.data.token));
  if (!name) return html(c, signInPage({ back: form.data.back, failed: true }), 401);
  const login = newLogin(name);
  await userAccount(c.env, tokenUserId(name)).startLogin(login.loginId, login.expiresAt);
  await setLoginCookie(c, config.cookieSecret, login);
  return c.redirect(form.data.back, 303);
});
