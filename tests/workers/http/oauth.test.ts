// Signing in to remote MCP servers with OAuth, through the real Worker in workerd
// against the local authorization server + bearer-protected MCP server fixture
// (tests/fixtures/oauth-server.ts, started by global setup). The test plays the
// browser: it follows the authorization URL to the fixture AS, which redirects
// back with a code, and POSTs code + state as public/oauth-callback.js does.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { PRE_REGISTERED } from "../../fixtures/oauth-realms";
import { authHeaders } from "../test-users";
import { WORKER_ORIGIN } from "../worker-fetch";
import { addServer, admin, authorize, base, bodies, call, callTool, finish, json, newSession, post, serverRow, signIn, stats } from "./oauth-helpers";

describe("OAuth sign-in to remote MCP servers", () => {
  it("discovers by the 401's resource_metadata, registers dynamically, signs in with PKCE S256 and the resource, and the session's server turns ready", async () => {
    const name = await addServer("header");
    const session = await newSession();
    const other = await newSession();
    expect(await serverRow(session, name)).toMatchObject({ state: "auth_required" });
    expect(await serverRow(other, name)).toMatchObject({ state: "auth_required" });
    const before = await stats("header");

    const url = await signIn(session, name);
    // The authorization request: PKCE S256, the resource indicator, the challenge's scope, our callback.
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      code_challenge_method: "S256",
      resource: `${base}/header/mcp`,
      scope: "mcp:read",
      redirect_uri: `${WORKER_ORIGIN}/oauth/callback`,
    });
    const after = await stats("header");
    expect(after.registrations - before.registrations).toBe(1);
    expect(after.codeExchanges - before.codeExchanges).toBe(1);
    expect(after.pkceFailures).toBe(0);

    // Reconnected without anyone asking again: ready, with the fixture's two tools.
    expect(await serverRow(session, name)).toMatchObject({ state: "ready", toolCount: 2 });
    const result = await callTool(session, `${name}.whoami`);
    expect(result).toMatchObject({ status: 200, body: { result: { content: [{ type: "text", text: "realm header, scope mcp:read" }] } } });
    expect((await call("/oauth/servers")).body.signedIn).toContain(name);
    // "Test" in My servers uses the user's tokens too.
    expect(await post(`/api/my-servers/${name}/test`, {})).toMatchObject({ status: 200, body: { test: { ok: true, toolCount: 2 } } });
    // Another session of the same user uses the same tokens: a new one at once; one that was waiting
    // connects again when "Sign in" is pressed there, without another authorization.
    const second = await newSession();
    expect(await serverRow(second, name)).toMatchObject({ state: "ready" });
    expect(await post("/oauth/sign-in", { server: name, session: other })).toMatchObject({ status: 200, body: { needed: false } });
    expect(await serverRow(other, name)).toMatchObject({ state: "ready" });
    expect((await stats("header")).authorizeRequests.length).toBe(after.authorizeRequests.length);
  });

  it("falls back to the well-known protected-resource metadata when the 401 names none", async () => {
    const name = await addServer("wellknown");
    const session = await newSession();
    await signIn(session, name);
    expect(await serverRow(session, name)).toMatchObject({ state: "ready", toolCount: 2 });
  });

  it("reads the challenge of a 2026-07-28 server that refuses an un-negotiated request before its auth check (-32020, not 401)", async () => {
    // The sign-in probe negotiates like every connection: server/discover with the 2026 header gets the 401.
    const name = await addServer("modern");
    const session = await newSession();
    expect(await serverRow(session, name)).toMatchObject({ state: "auth_required" });
    const url = await signIn(session, name);
    expect(url.searchParams.get("scope")).toBe("mcp:read");
    expect(await serverRow(session, name)).toMatchObject({ state: "ready", toolCount: 2 });
  });

  it("lets the authorization server verify the PKCE verifier kept with the state against the S256 challenge", async () => {
    const name = await addServer("header");
    const session = await newSession();
    const { url, code, state } = await authorize(session, name);
    // The verifier is kept server-side with the state (never sent to the browser); S256 of it is the challenge sent.
    const verifier = await runInDurableObject(
      userAccount(env as unknown as Env, "token:alice"),
      (_instance, ctx) => ctx.storage.sql.exec<{ verifier: string }>("SELECT verifier FROM oauth_pending WHERE state = ?", state).one().verifier,
    );
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
    const challenge = btoa(String.fromCharCode(...digest))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    expect(url.searchParams.get("code_challenge")).toBe(challenge);
    expect(bodies.some((b) => b.includes(verifier))).toBe(false);
    const before = await stats("header");
    expect((await finish(code, state)).status).toBe(200);
    const after = await stats("header");
    expect(after.codeExchanges - before.codeExchanges).toBe(1);
    expect(after.pkceFailures).toBe(0);
  });

  it("uses a pre-registered client (no registration endpoint) with its secret, kept write-only", async () => {
    const name = await addServer("prereg", { oauth: { clientId: PRE_REGISTERED.clientId, clientSecret: PRE_REGISTERED.clientSecret } });
    const listed = await call("/api/my-servers");
    expect((listed.body.servers as { name: string; oauth?: unknown }[]).find((s) => s.name === name)).toMatchObject({
      oauth: { clientId: PRE_REGISTERED.clientId, clientSecret: "••••••" },
    });
    expect(JSON.stringify(listed.body)).not.toContain(PRE_REGISTERED.clientSecret);
    const session = await newSession();
    const url = await signIn(session, name);
    expect(url.searchParams.get("client_id")).toBe(PRE_REGISTERED.clientId);
    expect((await stats("prereg")).registrations).toBe(0);
    expect(await serverRow(session, name)).toMatchObject({ state: "ready" });
  });

  it("refuses an authorization server that does not offer S256, with a clear error, before registering", async () => {
    const name = await addServer("nos256");
    const session = await newSession();
    const row = await serverRow(session, name);
    expect(row?.state).toBe("unavailable");
    expect(row?.lastError).toMatch(/does not support PKCE with S256 \(it lists plain\)/);
    const refused = await post("/oauth/sign-in", { server: name, session });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: "oauth_unsupported" } } });
    expect((refused.body.error as { message: string }).message).toMatch(/S256/);
    const s = await stats("nos256");
    expect(s.registrations).toBe(0);
    expect(s.authorizeRequests).toEqual([]);
  });

  it("refuses an authorization endpoint that is not an http(s) URL (the page would open it from our origin)", async () => {
    const name = await addServer("badscheme");
    const session = await newSession();
    const refused = await post("/oauth/sign-in", { server: name, session });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: "oauth_unsupported" } } });
    expect((refused.body.error as { message: string }).message).toMatch(/not an http\(s\) URL \(file:\)/);
    expect(JSON.stringify(refused.body)).not.toContain("/etc/passwd");
  });

  it("refuses a wrong, another user's, or a reused state, storing nothing", async () => {
    const name = await addServer("header");
    const session = await newSession();
    const { code, state } = await authorize(session, name);
    const exchanged = (await stats("header")).codeExchanges;
    expect(await finish(code, "x".repeat(43))).toMatchObject({ status: 400, body: { error: { code: "oauth_state_invalid" } } });
    // Bob cannot finish Alice's sign-in: the state lives in Alice's account.
    expect(await finish(code, state, "bob")).toMatchObject({ status: 400, body: { error: { code: "oauth_state_invalid" } } });
    expect((await call("/oauth/servers", {}, "bob")).body.signedIn).toEqual([]);
    expect((await stats("header")).codeExchanges).toBe(exchanged);
    expect((await call("/oauth/servers")).body.signedIn).not.toContain(name);
    // Alice's own, once; the second time it is used up.
    expect((await finish(code, state)).status).toBe(200);
    expect(await finish(code, state)).toMatchObject({ status: 400, body: { error: { code: "oauth_state_invalid" } } });
    expect(await post("/oauth/callback", { code: "", state: 1 })).toMatchObject({ status: 400, body: { error: { code: "bad_request" } } });
  });

  it("refuses a state older than ten minutes", async () => {
    const name = await addServer("header");
    const session = await newSession();
    const { code, state } = await authorize(session, name);
    // Started eleven minutes ago, as far as the account knows.
    await runInDurableObject(userAccount(env as unknown as Env, "token:alice"), (_instance, ctx) => {
      ctx.storage.sql.exec("UPDATE oauth_pending SET created_at = created_at - ? WHERE state = ?", 11 * 60_000, state);
    });
    const exchanged = (await stats("header")).codeExchanges;
    expect(await finish(code, state)).toMatchObject({ status: 400, body: { error: { code: "oauth_state_invalid" } } });
    expect((await stats("header")).codeExchanges).toBe(exchanged);
    expect(await serverRow(session, name)).toMatchObject({ state: "auth_required" });
  });

  it("serves the callback page without a login (the cookie stays behind on a cross-site redirect) and nothing else", async () => {
    const { SELF } = await import("cloudflare:test");
    const page = await SELF.fetch(`${WORKER_ORIGIN}/oauth/callback?code=abc&state=def`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('src="/oauth-callback.js"');
    expect(html).not.toContain("abc");
    // The POST that finishes it needs the caller's identity.
    expect(
      (await SELF.fetch(`${WORKER_ORIGIN}/oauth/callback`, { method: "POST", headers: json, body: JSON.stringify({ code: "abc", state: "d".repeat(43) }) }))
        .status,
    ).toBe(401);
  });

  it("refreshes a token before it expires", async () => {
    const name = await addServer("short");
    const session = await newSession();
    await signIn(session, name);
    const before = await stats("short");
    expect((await callTool(session, `${name}.whoami`)).status).toBe(200);
    const after = await stats("short");
    // The 5 s token is within the refresh margin: refreshed before it was sent, and never refused.
    expect(after.refreshes).toBeGreaterThan(before.refreshes);
    expect(after.unauthorized).toBe(before.unauthorized);
  });

  it("refreshes on a 401 and retries the call", async () => {
    const name = await addServer("wellknown");
    const session = await newSession();
    await signIn(session, name);
    await admin("wellknown", "expire");
    const before = await stats("wellknown");
    expect(await callTool(session, `${name}.whoami`)).toMatchObject({
      status: 200,
      body: { result: { content: [{ text: "realm wellknown, scope mcp:read" }] } },
    });
    const after = await stats("wellknown");
    expect(after.unauthorized).toBeGreaterThan(before.unauthorized);
    expect(after.refreshes).toBeGreaterThan(before.refreshes);
    expect(await serverRow(session, name)).toMatchObject({ state: "ready" });
  });

  it("steps up on 403 insufficient_scope: the server asks for sign-in again with the wider scope", async () => {
    const name = await addServer("scoped");
    const session = await newSession();
    await signIn(session, name);
    expect((await callTool(session, `${name}.whoami`)).status).toBe(200);
    const refused = await callTool(session, `${name}.admin_echo`);
    expect(refused.status).not.toBe(200);
    expect((await stats("scoped")).insufficientScope).toBeGreaterThan(0);
    expect(await serverRow(session, name)).toMatchObject({ state: "auth_required" });
    const url = await signIn(session, name);
    expect(url.searchParams.get("scope")?.split(" ").sort()).toEqual(["mcp:admin", "mcp:read"]);
    expect(await serverRow(session, name)).toMatchObject({ state: "ready" });
    expect(await callTool(session, `${name}.admin_echo`)).toMatchObject({ status: 200, body: { result: { content: [{ text: "admin ok" }] } } });
  });

  it("after the authorization server revoked the tokens, the server asks for sign-in again", async () => {
    const name = await addServer("revoke");
    const session = await newSession();
    await signIn(session, name);
    expect((await callTool(session, `${name}.whoami`)).status).toBe(200);
    await admin("revoke", "revoke");
    const failed = await callTool(session, `${name}.whoami`);
    expect(failed.status).not.toBe(200);
    expect(JSON.stringify(failed.body)).toMatch(/sign in/i);
    expect(await serverRow(session, name)).toMatchObject({ state: "auth_required" });
    expect((await call("/oauth/servers")).body.signedIn).not.toContain(name);
    await signIn(session, name);
    expect((await callTool(session, `${name}.whoami`)).status).toBe(200);
  });

  it("signs out: revokes the tokens at the authorization server (RFC 7009) and forgets them; removing a server does too", async () => {
    const name = await addServer("revoke");
    const session = await newSession();
    await signIn(session, name);
    const before = (await stats("revoke")).revocations.length;
    expect(await post("/oauth/sign-out", { server: name, session })).toMatchObject({ status: 200, body: { ok: true, revoked: 2 } });
    expect((await stats("revoke")).revocations.slice(before)).toEqual(["refresh_token", "access_token"]);
    expect((await call("/oauth/servers")).body.signedIn).not.toContain(name);
    expect(await serverRow(session, name)).toMatchObject({ state: "auth_required" });
    expect((await post("/oauth/sign-out", { server: name, session })).status).toBe(404);

    await signIn(session, name);
    const removedBefore = (await stats("revoke")).revocations.length;
    expect((await call(`/api/my-servers/${name}`, { method: "DELETE" })).status).toBe(204);
    expect((await stats("revoke")).revocations.length - removedBefore).toBe(2);
    await runInDurableObject(userAccount(env as unknown as Env, "token:alice"), (_instance, ctx) => {
      expect(ctx.storage.sql.exec("SELECT server FROM oauth WHERE server = ?", name).toArray()).toEqual([]);
    });
  });

  it("identifies itself by a client ID metadata document when the authorization server takes URL client ids (Worker on https)", async () => {
    const { SELF } = await import("cloudflare:test");
    const https = "https://edgehost.test";
    const httpsPost = async (path: string, body: unknown) => {
      const response = await SELF.fetch(`${https}${path}`, { method: "POST", headers: authHeaders("alice", json), body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const name = await addServer("cimd");
    const session = await newSession();
    const started = await httpsPost("/oauth/sign-in", { server: name, session });
    expect(started.status).toBe(200);
    const url = new URL(started.body.url as string);
    const clientId = `${https}/oauth/client-metadata.json`;
    expect(url.searchParams.get("client_id")).toBe(clientId);
    expect(url.searchParams.get("redirect_uri")).toBe(`${https}/oauth/callback`);
    // The document is public (an AS fetches it without our login) and names itself.
    const document = (await (await SELF.fetch(clientId)).json()) as Record<string, unknown>;
    expect(document).toMatchObject({ client_id: clientId, redirect_uris: [`${https}/oauth/callback`], token_endpoint_auth_method: "none" });
    expect((await fetch(`${base}/_admin/cimd/client-document`, { method: "POST", body: JSON.stringify({ ...document, url: clientId }) })).status).toBe(200);
    const answer = await fetch(url, { redirect: "manual" });
    const back = new URL(answer.headers.get("location") ?? "");
    const done = await httpsPost("/oauth/callback", { code: back.searchParams.get("code"), state: back.searchParams.get("state") });
    expect(done).toMatchObject({ status: 200, body: { ok: true } });
    expect((await stats("cimd")).registrations).toBe(0);
    expect(await serverRow(session, name)).toMatchObject({ state: "ready" });
  });

  it("never puts a token in a response body or page", async () => {
    const name = await addServer("leak");
    const session = await newSession();
    await signIn(session, name);
    await callTool(session, `${name}.whoami`);
    await call("/api/my-servers");
    await call(`/api/servers?session=${session}`);
    await call("/oauth/servers");
    await call(`/oauth/callback`);
    await call("/");
    const issued = [...(await stats("leak")).issued, ...(await stats("header")).issued, ...(await stats("revoke")).issued];
    expect(issued.length).toBeGreaterThan(3);
    const leaked = issued.filter((token) => bodies.some((b) => b.includes(token)));
    expect(leaked).toEqual([]);
  });
});
