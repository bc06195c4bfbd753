// /api/my-servers: the remote MCP servers a user adds, edits, tests and removes at
// runtime (kept in their UserAccount), beside mcp.json's deploy-time servers,
// which are listed read-only. Sessions pick changes up at their next turn;
// POST /api/servers/restart reconnects a session at once.
import { Hono, type Context } from "hono";
import { runtimeConfig } from "../config/runtime-config";
import { isLoopback, type AppEnv } from "../identity/identify";
import { guardedFetch } from "../servers/guarded-fetch";
import { serverUrlRefusal, type UrlPolicy } from "../servers/url-policy";
import { deploymentNames, deploymentNamesFor } from "../servers/lookup";
import { userAccount } from "../users/account";
import { revokeTokens } from "../mcp/oauth/revoke";
import { takeOAuthRecord } from "../users/oauth-client-storage";
import { testServer, unreachableMessage } from "../servers/test-server";
import { maskedServer, SECRET_BOUND, UserServerInputSchema, validateUserServer, type StoredUserServer } from "../users/user-servers";
import { SESSION_ID, badSessionId, sessionOrConsole } from "./owned-session";
import { parsed } from "./request-body";
import { RequestError } from "../shared/errors";

export const myServers = new Hono<AppEnv>();

/** The address rule for this request: deployed unless served on loopback (src/servers/url-policy.ts). */
function requestPolicy(c: Context<AppEnv>): UrlPolicy {
  return { deployed: !isLoopback(c), allowPrivate: runtimeConfig(c.env).settings.ALLOW_PRIVATE_SERVER_URLS, workerHost: new URL(c.req.url).hostname };
}

/** Throws a 400 naming the rule when `url` may not be reached from here. */
function refuseUrl(c: Context<AppEnv>, url: string): void {
  const why = serverUrlRefusal(url, requestPolicy(c));
  if (why) throw new RequestError("server_url_refused", why, { issues: [{ path: "url", message: why }] });
}

const serverBody = parsed("json", UserServerInputSchema, "the server entry is invalid");

async function save(c: Context<AppEnv>, input: StoredUserServer, create: boolean): Promise<Response> {
  const account = userAccount(c.env, c.var.identity.id);
  const previous = create ? undefined : await account.getServer(input.name);
  if (!create && !previous) throw new RequestError("not_found", `you have no server "${input.name}"`);
  if (create && deploymentNames(c.env).some((n) => n.toLowerCase() === input.name.toLowerCase())) {
    throw new RequestError("duplicate_name", `"${input.name}" is a server of this deployment (mcp.json)`, {
      issues: [{ path: "name", message: "taken by a server in mcp.json" }],
    });
  }
  const validated = validateUserServer(input, previous);
  if (!validated.ok) {
    const message = validated.code === "secret_required" ? SECRET_BOUND : "the server entry is invalid";
    throw new RequestError(validated.code ?? "bad_request", message, { issues: validated.issues });
  }
  refuseUrl(c, validated.config.url);
  const { settings } = runtimeConfig(c.env);
  const spend = await account.admit("call", { perMinute: settings.RATE_LIMIT_PER_MINUTE, burst: settings.RATE_LIMIT_BURST });
  if (!spend.ok) throw new RequestError(spend.code, spend.message, "retryAfterMs" in spend ? { retryAfterMs: spend.retryAfterMs } : {});
  const test = validated.server.disabled
    ? undefined
    : await testServer({ env: c.env, userId: c.var.identity.id }, validated.config, settings.MCP_CONNECT_TIMEOUT_MS, guardedFetch(requestPolicy(c)));
  if (test && !test.ok && test.code === "unreachable") {
    const said = unreachableMessage(validated.config.url, test, requestPolicy(c).deployed);
    throw new RequestError("server_unreachable", said.message, { issues: [{ path: "url", message: said.field }] });
  }
  const stored = await account.putServer(validated.server, create);
  if (!stored.ok) {
    throw new RequestError(stored.code, stored.code === "duplicate_name" ? `you already have a server "${input.name}"` : `you have no server "${input.name}"`, {
      issues: [{ path: "name", message: stored.code === "duplicate_name" ? "already used" : "not found" }],
    });
  }
  return c.json({ server: maskedServer(validated.server), test }, create ? 201 : 200);
}

myServers.get("/", async (c) => {
  const servers = await userAccount(c.env, c.var.identity.id).listServers();
  const identity = c.var.identity;
  // The same audience rule as the caller's sessions: a server mcp.json keeps for others is not named here.
  const deployment = deploymentNamesFor(c.env, { mode: c.var.auth.mode, user: { id: identity.id, name: identity.name } });
  return c.json({ servers: servers.map(maskedServer), deployment });
});

myServers.post("/", serverBody, (c) => save(c, c.req.valid("json"), true));

myServers.put("/:name", serverBody, (c) => {
  const input = c.req.valid("json");
  if (input.name !== c.req.param("name"))
    throw new RequestError("bad_request", "the name cannot change; remove the server and add it again", {
      issues: [{ path: "name", message: "must match the URL" }],
    });
  return save(c, input, false);
});

myServers.delete("/:name", async (c) => {
  const name = c.req.param("name");
  const deleted = await userAccount(c.env, c.var.identity.id).deleteServer(name);
  // Signed in to it: the tokens are forgotten here and revoked at the authorization server.
  if (deleted) await revokeTokens(await takeOAuthRecord(c.env, c.var.identity.id, name), guardedFetch(requestPolicy(c)));
  if (!deleted) throw new RequestError("not_found", `you have no server "${c.req.param("name")}"`);
  return c.body(null, 204);
});

myServers.post("/:name/test", async (c) => {
  const stored = await userAccount(c.env, c.var.identity.id).getServer(c.req.param("name"));
  if (!stored) throw new RequestError("not_found", `you have no server "${c.req.param("name")}"`);
  const validated = validateUserServer(stored);
  if (!validated.ok) throw new RequestError("bad_request", "the stored entry is invalid", { issues: validated.issues });
  refuseUrl(c, validated.config.url);
  const timeoutMs = runtimeConfig(c.env).settings.MCP_CONNECT_TIMEOUT_MS;
  return c.json({ test: await testServer({ env: c.env, userId: c.var.identity.id }, validated.config, timeoutMs, guardedFetch(requestPolicy(c))) });
});

/** Reconnects a session's servers now (?session=, else the caller's console session). */
export async function restartServers(c: Context<AppEnv>): Promise<Response> {
  const session = c.req.query("session");
  if (session !== undefined && !SESSION_ID.test(session)) throw badSessionId();
  const stub = await sessionOrConsole(c, session);
  await stub.restartServers();
  return c.body(null, 204);
}
