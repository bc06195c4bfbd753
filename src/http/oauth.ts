// /oauth: the user signing in to (and out of) a remote MCP server that asks for
// OAuth. The Worker is the OAuth client; tokens stay in the user's UserAccount.
//
// POST /oauth/sign-in {server, session} → {url}: the authorization URL, with a
//   `state` that is random, single-use, ten minutes long and bound (server-side,
//   in the caller's own account) to that session and server.
// GET /oauth/callback: where the authorization server sends the browser back. In
//   token mode the login cookie is SameSite=Strict, so this cross-site arrival
//   carries no identity: it only serves a small page that POSTs code and state
//   from our own origin (cookie included) to
// POST /oauth/callback {code, state, iss?}: checks the state against the caller
//   (another user's state is not in their account), exchanges the code, and
//   reconnects the server in the session the sign-in started from.
// POST /oauth/sign-out {server, session?}: revokes the tokens (RFC 7009) and forgets them.
// GET /oauth/servers: which servers the caller is signed in to (names only).
// GET /oauth/client-metadata.json: this client's metadata document (for an AS that
//   takes URL client ids), public.
import { isStrictScopeSuperset } from "@modelcontextprotocol/client";
import { Hono, type Context } from "hono";
import { z } from "zod";
import { runtimeConfig } from "../config/runtime-config";
import { isLoopback, type AppEnv } from "../identity/identify";
import { OAuthUnsupportedError } from "../mcp/oauth/errors";
import type { OAuthRecord } from "../mcp/oauth/provider";
import { revokeTokens } from "../mcp/oauth/revoke";
import { beginSignIn, finishSignIn } from "../mcp/oauth/sign-in";
import { publicFailure } from "../mcp/http-failure";
import type { RemoteServerConfig } from "../shared/mcp-config/config";
import { userAccount } from "../users/account";
import { remoteServerFor } from "../servers/lookup";
import { guardedFetch } from "../servers/guarded-fetch";
import type { UrlPolicy } from "../servers/url-policy";
import { accountOAuthStorage, loadOAuthRecord, takeOAuthRecord } from "../users/oauth-client-storage";
import { findOwnedSession, ownedSession, SESSION_ID } from "./owned-session";
import { callbackPage, clientMetadataDocument } from "./oauth-pages";
import { parsed } from "./request-body";
import { RequestError } from "../shared/errors";
import { secretsOf, upstreamExcerpt } from "../shared/upstream-text";

export const oauth = new Hono<AppEnv>();

const SERVER = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "not a server name");
const SignInSchema = z.object({ server: SERVER, session: z.string().regex(SESSION_ID, "not a session id") });
const SignOutSchema = z.object({ server: SERVER, session: z.string().regex(SESSION_ID, "not a session id").optional() });
const CallbackSchema = z.object({ state: z.string().min(16).max(200), code: z.string().min(1).max(2048), iss: z.string().max(2048).optional() });

const body = <T extends z.ZodType>(schema: T) => parsed("json", schema, "the request body is invalid");

/** The caller's remote server by name (src/servers/lookup.ts). */
function findServer(c: Context<AppEnv>, name: string): Promise<RemoteServerConfig | undefined> {
  const identity = c.var.identity;
  return remoteServerFor(c.env, { mode: c.var.auth.mode, user: { id: identity.id, name: identity.name } }, name);
}

/** Sign-ins a server may ask for within SIGN_IN_WINDOW_MS before it gets oauth_retry_limit. */
const MAX_SIGN_INS = 3;
const SIGN_IN_WINDOW_MS = 10 * 60_000;

function recentSignIns(record: OAuthRecord | undefined, now = Date.now()): number[] {
  return (record?.signIns ?? []).filter((at) => now - at < SIGN_IN_WINDOW_MS);
}

const noServer = (name: string) => new RequestError("not_found", `no remote MCP server "${name}" to sign in to`);

function randomState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

oauth.post("/sign-in", body(SignInSchema), async (c) => {
  const { server: name, session } = c.req.valid("json");
  const owned = await ownedSession(c, session, { claim: false });
  const server = await findServer(c, name);
  if (!server) throw noServer(name);
  const account = userAccount(c.env, c.var.identity.id);
  // Each start reaches out to the server and its authorization server: counted like a tool call.
  const { settings } = runtimeConfig(c.env);
  const spend = await account.admit("call", { perMinute: settings.RATE_LIMIT_PER_MINUTE, burst: settings.RATE_LIMIT_BURST });
  if (!spend.ok) throw new RequestError(spend.code, spend.message, "retryAfterMs" in spend ? { retryAfterMs: spend.retryAfterMs } : {});
  // Signed in already (in another session): this session only has to connect again, unless a
  // step-up wants a scope the tokens lack.
  const record = await loadOAuthRecord(c.env, c.var.identity.id, name);
  const own = record?.serverUrl === server.url ? record : undefined;
  // A server that challenges again after every sign-in (it asks for a scope it never grants) is not sent to its AS forever.
  const recent = recentSignIns(own);
  if (recent.length >= MAX_SIGN_INS) {
    throw new RequestError(
      "oauth_retry_limit",
      `"${name}" asked for sign-in again after ${recent.length} sign-ins in the last ${SIGN_IN_WINDOW_MS / 60_000} minutes${own?.challenge?.scope ? ` (it wants: ${own.challenge.scope})` : ""}: its authorization server may not grant what it asks for. Try again later, or ask its operator.`,
    );
  }
  if (own?.tokens && !own.challenge && !isStrictScopeSuperset(own.scope, own.tokens.scope)) {
    if ((await owned.reconnectServer(name)) === "ready") return c.json({ signedIn: true, needed: false });
  }
  const origin = new URL(c.req.url).origin;
  const state = randomState();
  await account.oauthStartSignIn(state, name, session);
  try {
    const url = await beginSignIn({
      server,
      storage: accountOAuthStorage(c.env, c.var.identity.id, server),
      state,
      redirectUri: `${origin}/oauth/callback`,
      // URL client ids must be https (SEP-991): offered only when the Worker is served over https.
      clientMetadataUrl: origin.startsWith("https://") ? `${origin}/oauth/client-metadata.json` : undefined,
      remembered: own?.scope,
      granted: own?.tokens?.scope,
      stored: own?.challenge,
      saveVerifier: (verifier) => account.oauthSaveVerifier(state, verifier),
      fetch: guardedFetch(requestPolicy(c)),
    });
    if (!url) {
      await account.oauthTakeSignIn(state);
      return c.json({ signedIn: true, needed: false });
    }
    return c.json({ url: url.toString() });
  } catch (error) {
    await account.oauthTakeSignIn(state);
    if (error instanceof OAuthUnsupportedError) throw new RequestError(error.code, error.message);
    throw new RequestError("oauth_failed", `sign-in to "${name}" could not start: ${oauthFailure(error, server)}`);
  }
});

/** The address rule for this request's sign-in: deployed unless served on loopback (src/servers/url-policy.ts). */
function requestPolicy(c: Context<AppEnv>): UrlPolicy {
  return { deployed: !isLoopback(c), allowPrivate: runtimeConfig(c.env).settings.ALLOW_PRIVATE_SERVER_URLS, workerHost: new URL(c.req.url).hostname };
}

/**
 * What an authorization server's failure may say to the page: the SDK quotes its answers
 * (a token endpoint's body among them), so only a short excerpt, without the body or any
 * secret the request carried (src/shared/upstream-text.ts).
 */
function oauthFailure(error: unknown, server: RemoteServerConfig): string {
  const secrets = [...Object.values(server.headers ?? {}).flatMap(secretsOf), ...secretsOf(server.oauth?.clientSecret)];
  return upstreamExcerpt(publicFailure(error), secrets);
}

oauth.get("/callback", (c) => c.html(callbackPage()));

oauth.post("/callback", body(CallbackSchema), async (c) => {
  const { state, code, iss } = c.req.valid("json");
  const account = userAccount(c.env, c.var.identity.id);
  const pending = await account.oauthTakeSignIn(state);
  if (!pending?.verifier) {
    throw new RequestError(
      "oauth_state_invalid",
      "this sign-in is unknown, expired or already used, or was started by someone else: start it again from the page",
    );
  }
  const server = await findServer(c, pending.server);
  if (!server) throw noServer(pending.server);
  const storage = accountOAuthStorage(c.env, c.var.identity.id, server);
  try {
    await finishSignIn({ server, storage, verifier: pending.verifier, code, iss, fetch: guardedFetch(requestPolicy(c)) });
    // The challenge is answered; the sign-in counts towards the limit on servers that keep asking.
    const before = await loadOAuthRecord(c.env, c.var.identity.id, server.name);
    await storage.save({ challenge: undefined, signIns: [...recentSignIns(before), Date.now()] });
  } catch (error) {
    throw new RequestError("oauth_failed", `sign-in to "${server.name}" failed: ${oauthFailure(error, server)}`);
  }
  await (await findOwnedSession(c, pending.session, { claim: false }))?.reconnectServer(server.name);
  return c.json({ ok: true, server: server.name, session: pending.session });
});

oauth.post("/sign-out", body(SignOutSchema), async (c) => {
  const { server: name, session } = c.req.valid("json");
  // One call: the tokens are forgotten here, then revoked at the authorization server.
  const record = await takeOAuthRecord(c.env, c.var.identity.id, name);
  if (!record?.tokens) throw new RequestError("not_found", `you are not signed in to "${name}"`);
  const revocation = await revokeTokens(record, guardedFetch(requestPolicy(c)));
  if (session !== undefined) {
    await (await findOwnedSession(c, session, { claim: false }))?.reconnectServer(name);
  }
  return c.json({ ok: true, server: name, revoked: revocation.revoked });
});

oauth.get("/servers", async (c) => c.json({ signedIn: await userAccount(c.env, c.var.identity.id).oauthSignedIn() }));

oauth.get("/client-metadata.json", (c) => c.json(clientMetadataDocument(new URL(c.req.url).origin)));
