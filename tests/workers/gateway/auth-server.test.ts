// The /mcp authorization server in workerd (src/gateway/auth-server.ts, src/http/connect.ts):
// metadata, registration, PKCE, audience, refresh, revocation and Disconnect, with the SDK's
// own OAuth client doing discovery, registration and the token exchange. Until the app
// object serves MCP, a request that passes the token check gets the object's own answer:
// these tests assert on the 401 / not-401 boundary, not on MCP results.
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import type { Env } from "../../../src/config/env";
import { gatewayApp } from "../../../src/gateway/apps";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { authorize, connectWithOAuth, GatewayOAuthClient } from "../../fixtures/gateway-client";
import { authHeaders, type TestUser } from "../test-users";

const ORIGIN = "https://edgehost.test";
const MCP = `${ORIGIN}/mcp`;
const fetchWorker = (url: string | URL, init?: RequestInit) => SELF.fetch(url, init);

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

function callMcp(accessToken: string, url = MCP): Promise<Response> {
  return SELF.fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(initialize),
  });
}

function browser(user: TestUser = "alice", extra: Partial<ConstructorParameters<typeof GatewayOAuthClient>[0]> = {}) {
  return new GatewayOAuthClient({ fetch: fetchWorker, headers: authHeaders(user), ...extra });
}

async function register(origin = ORIGIN): Promise<string> {
  const response = await SELF.fetch(`${origin}/connect/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Raw Client", redirect_uris: ["https://client.example/cb"], token_endpoint_auth_method: "none" }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** An authorize request with our own parameters, as alice; the provider's refusal is a redirect back to the client. */
async function authorizeWith(params: Record<string, string>): Promise<URL> {
  const clientId = await register();
  const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: "https://client.example/cb", state: "s1", ...params });
  const response = await SELF.fetch(`${ORIGIN}/connect/authorize?${query}`, { headers: authHeaders("alice"), redirect: "manual" });
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location") as string);
}

const S256 = { code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" };

describe("the /mcp authorization server", () => {
  it("publishes both metadata documents", async () => {
    const as = (await (await SELF.fetch(`${ORIGIN}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/connect/authorize`,
      token_endpoint: `${ORIGIN}/connect/token`,
      registration_endpoint: `${ORIGIN}/connect/register`,
      revocation_endpoint: `${ORIGIN}/connect/token`,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      client_id_metadata_document_supported: true,
    });
    expect(as.scopes_supported).toEqual(["mcp", "offline_access"]);
    const pr = (await (await SELF.fetch(`${ORIGIN}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(pr).toMatchObject({ resource: MCP, authorization_servers: [ORIGIN], scopes_supported: ["mcp"], resource_name: "edgehost" });
  });

  it("challenges a call without a token, naming its resource metadata", async () => {
    const response = await SELF.fetch(MCP, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(initialize) });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain(`resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('scope="mcp"');
  });

  it("registers a client, shows the consent page, and its token passes the check at /mcp", async () => {
    const provider = browser("alice", { clientName: "Cursor <b>test</b>" });
    const tokens = await authorize(provider, MCP);
    expect(provider.clientInformation()?.client_id).toBeTruthy();
    const html = provider.consent?.html ?? "";
    expect(html).toContain("Cursor &lt;b&gt;test&lt;/b&gt;");
    expect(html).toContain('id="redirect-host">client.example<');
    expect(html).toContain('name="sampling" value="on">');
    expect(html).not.toContain("checked");
    expect(tokens.access_token).toBeTruthy();
    expect((await callMcp(tokens.access_token)).status).not.toBe(401);
  });

  it("the SDK client's own transport goes through the flow: 401, consent, finishAuth, then a call with the token", async () => {
    const provider = browser("alice", { clientName: "SDK Client" });
    const client = new Client({ name: "sdk-client", version: "1.0.0" });
    const transport = () => new StreamableHTTPClientTransport(new URL(MCP), { authProvider: provider, fetch: fetchWorker });
    // Until the app object serves MCP its answer after the token check is not an MCP one: only the auth outcome is asserted.
    const outcome = await connectWithOAuth(client, transport, provider).then(
      () => "connected",
      (error: unknown) => error,
    );
    expect(outcome).not.toBeInstanceOf(UnauthorizedError);
    expect(provider.consent?.html).toContain("SDK Client");
    const accessToken = provider.tokens()?.access_token as string;
    expect((await callMcp(accessToken)).status).not.toBe(401);
    await client.close();
  });

  it("refuses an MCP message over 4 MiB with 413 before the app's object reads it, and serves the next one", async () => {
    const tokens = await authorize(browser("alice", { clientName: "Big Sender" }), MCP);
    const huge = JSON.stringify({ ...initialize, params: { ...initialize.params, padding: "x".repeat(4 * 1024 * 1024) } });
    const refused = await SELF.fetch(MCP, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: huge,
    });
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
    const next = await callMcp(tokens.access_token);
    expect(next.status).toBe(200);
    await next.body?.cancel();
  });

  it("refuses PKCE plain and a request without PKCE", async () => {
    const plain = await authorizeWith({ code_challenge: "abc".repeat(15), code_challenge_method: "plain" });
    expect(plain.origin + plain.pathname).toBe("https://client.example/cb");
    expect(plain.searchParams.get("error")).toBe("invalid_request");
    const missing = await authorizeWith({});
    expect(missing.searchParams.get("error")).toBe("invalid_request");
    expect(missing.searchParams.get("code")).toBeNull();
  });

  it("refuses a resource other than /mcp (invalid_target)", async () => {
    const other = await authorizeWith({ ...S256, resource: `${ORIGIN}/api/sessions` });
    expect(other.searchParams.get("error")).toBe("invalid_target");
  });

  it("refuses at /mcp a token minted for another origin (audience)", async () => {
    const tokens = await authorize(browser("alice"), "https://other.test/mcp");
    expect((await callMcp(tokens.access_token, "https://other.test/mcp")).status).not.toBe(401);
    expect((await callMcp(tokens.access_token)).status).toBe(401);
  });

  it("keeps the two kinds of token apart: a named token at /mcp, an OAuth token at /api", async () => {
    const named = authHeaders("alice").get("authorization")?.slice("Bearer ".length) as string;
    expect((await callMcp(named)).status).toBe(401);
    const tokens = await authorize(browser("alice"), MCP);
    const api = await SELF.fetch(`${ORIGIN}/api/sessions`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(api.status).toBe(401);
  });

  it("rotates refresh tokens, and a revoked token (RFC 7009) is refused at once", async () => {
    const provider = browser("bob");
    const tokens = await authorize(provider, MCP);
    const clientId = provider.clientInformation()?.client_id as string;
    const form = (body: Record<string, string>) => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });
    const refreshed = await SELF.fetch(
      `${ORIGIN}/connect/token`,
      form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token as string, client_id: clientId }),
    );
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.access_token).not.toBe(tokens.access_token);
    expect((await callMcp(next.access_token)).status).not.toBe(401);
    const revoked = await SELF.fetch(`${ORIGIN}/connect/token`, form({ token: next.access_token, token_type_hint: "access_token", client_id: clientId }));
    expect(revoked.status).toBe(200);
    expect((await callMcp(next.access_token)).status).toBe(401);
  });

  it("Disconnect refuses the app's next call at once, and its grant is gone", async () => {
    const provider = browser("carol", { clientName: "Disconnect Me" });
    const tokens = await authorize(provider, MCP);
    expect((await callMcp(tokens.access_token)).status).not.toBe(401);
    const list = (await (await SELF.fetch(`${ORIGIN}/api/apps`, { headers: authHeaders("carol") })).json()) as { apps: { id: string; clientName: string }[] };
    const app = list.apps.find((a) => a.clientName === "Disconnect Me");
    expect(app).toBeDefined();
    const removed = await SELF.fetch(`${ORIGIN}/api/apps/${app?.id}`, { method: "DELETE", headers: authHeaders("carol") });
    expect(removed.status).toBe(200);
    const after = await callMcp(tokens.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain("invalid_token");
    // The grant went with it: the refresh token no longer works either.
    const refresh = await SELF.fetch(`${ORIGIN}/connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: tokens.refresh_token as string,
        client_id: provider.clientInformation()?.client_id as string,
      }),
    });
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("the app object itself refuses a disconnected generation, whatever the token store still holds", async () => {
    const tokens = await authorize(browser("frank", { clientName: "Object Check" }), MCP);
    const list = (await (await SELF.fetch(`${ORIGIN}/api/apps`, { headers: authHeaders("frank") })).json()) as { apps: { id: string; clientName: string }[] };
    const appId = list.apps.find((a) => a.clientName === "Object Check")?.id as string;
    // Only the object is told (the grant stays in KV, as a stale KV read would still show it).
    await gatewayApp(env as unknown as Env, appId).disconnect();
    const refused = await callMcp(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("app_disconnected");
  });

  it("a declined consent goes back to the client with access_denied, and no app is listed", async () => {
    const provider = browser("erin", { decision: "deny", clientName: "Declined" });
    await expect(authorize(provider, MCP)).rejects.toThrow(/no authorization code/);
    expect(provider.consent?.redirectedTo.searchParams.get("error")).toBe("access_denied");
    const list = (await (await SELF.fetch(`${ORIGIN}/api/apps`, { headers: authHeaders("erin") })).json()) as { apps: { clientName: string }[] };
    expect(list.apps.map((a) => a.clientName)).not.toContain("Declined");
  });

  it("signed out: a same-site bounce first (the login cookie is Strict), then the sign-in form", async () => {
    const clientId = await register();
    const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: "https://client.example/cb", state: "s", ...S256 });
    const first = await SELF.fetch(`${ORIGIN}/connect/authorize?${query}`, { redirect: "manual" });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-security-policy")).toContain("default-src 'none'");
    const bounce = await first.text();
    const target = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(bounce)?.[1]?.replaceAll("&amp;", "&") as string;
    expect(target).toContain("_edgehost_bounce=1");
    const second = await SELF.fetch(`${ORIGIN}${target}`, { redirect: "manual" });
    expect(second.status).toBe(401);
    expect(await second.text()).toContain('action="/connect/sign-in"');
  });
});

describe("the consent forms", () => {
  const form = (body: Record<string, string>, headers: HeadersInit = {}) => {
    const all = new Headers(headers);
    all.set("content-type", "application/x-www-form-urlencoded");
    all.set("origin", ORIGIN);
    return { method: "POST", headers: all, body: new URLSearchParams(body), redirect: "manual" as const };
  };

  it("the sign-in form signs the browser in and goes back to the consent page, which the cookie then opens", async () => {
    const clientId = await register();
    const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: "https://client.example/cb", state: "s", ...S256 });
    const back = `/connect/authorize?${query}`;
    const wrong = await SELF.fetch(`${ORIGIN}/connect/sign-in`, form({ token: "not-a-token-of-anyone", back }));
    expect(wrong.status).toBe(401);
    const token = authHeaders("bob").get("authorization")?.slice("Bearer ".length) as string;
    const signedIn = await SELF.fetch(`${ORIGIN}/connect/sign-in`, form({ token, back }));
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(back);
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const consent = await SELF.fetch(`${ORIGIN}${back}`, { headers: { cookie } });
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain("Signed in as <strong>bob</strong>");
    // Only back to the consent page: never an open redirect.
    const elsewhere = await SELF.fetch(`${ORIGIN}/connect/sign-in`, form({ token, back: "https://evil.example/" }));
    expect(elsewhere.status).toBe(400);
  });

  it("a consent post with a handle that is not this browser's is a page (400), never a redirect", async () => {
    const response = await SELF.fetch(`${ORIGIN}/connect/authorize`, form({ handle: "forged", decision: "approve" }, authHeaders("alice")));
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(response.headers.get("content-type")).toContain("text/html");
  });

  it("another site's page cannot post the consent form", async () => {
    const headers = authHeaders("alice");
    const post = form({ handle: "x", decision: "approve" }, headers);
    post.headers.set("origin", "https://evil.example");
    expect((await SELF.fetch(`${ORIGIN}/connect/authorize`, post)).status).toBe(403);
  });
});

describe("the gateway switches", () => {
  async function direct(path: string, overrides: Record<string, unknown>): Promise<Response> {
    const ctx = createExecutionContext();
    const response = await worker.fetch(new Request(`${ORIGIN}${path}`, { headers: authHeaders("alice") }), { ...env, ...overrides } as unknown as Env, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  }

  it("MCP_GATEWAY=off: /mcp, the metadata and /connect answer 404, and /api/apps says it is off", async () => {
    for (const path of ["/mcp", "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp", "/connect/authorize?client_id=x"]) {
      const response = await direct(path, { MCP_GATEWAY: "off" });
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
    const apps = await direct("/api/apps", { MCP_GATEWAY: "off" });
    expect(await apps.json()).toEqual({ enabled: false, apps: [] });
  });

  it("without OAUTH_KV: /mcp answers 503 and the rest of the Worker is unchanged", async () => {
    const response = await direct("/mcp", { OAUTH_KV: undefined });
    expect(response.status).toBe(503);
    expect((await direct("/api/health", { OAUTH_KV: undefined })).status).toBe(200);
  });
});
