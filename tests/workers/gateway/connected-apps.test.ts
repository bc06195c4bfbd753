// Connected apps (/api/apps, src/http/connected-apps.ts) in workerd: each person sees and
// changes only their own apps, the list shows when an app was last used, and Delete my data
// disconnects every app at once.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { tokenUserId } from "../../../src/identity/tokens";
import { userAccount } from "../../../src/users/account";
import { authorize, GatewayOAuthClient } from "../../fixtures/gateway-client";
import { authHeaders, type TestUser } from "../test-users";

const ORIGIN = "https://edgehost.test";
const MCP = `${ORIGIN}/mcp`;

type AppView = { id: string; clientName: string; redirectHost: string; sampling: boolean; connectedAt: number; lastUsed: number | null };

function api(path: string, user: TestUser, init: RequestInit = {}): Promise<Response> {
  const headers = authHeaders(user, init.headers);
  if (init.body) headers.set("content-type", "application/json");
  return SELF.fetch(`${ORIGIN}${path}`, { ...init, headers });
}

async function apps(user: TestUser): Promise<AppView[]> {
  const response = await api("/api/apps", user);
  expect(response.status).toBe(200);
  return ((await response.json()) as { enabled: boolean; apps: AppView[] }).apps;
}

/** `user` connects a client named `clientName`: its tokens and its row in the list. */
async function connectApp(user: TestUser, clientName: string): Promise<{ accessToken: string; app: AppView }> {
  const provider = new GatewayOAuthClient({ fetch: (url, init) => SELF.fetch(url, init), headers: authHeaders(user), clientName });
  const tokens = await authorize(provider, MCP);
  const app = (await apps(user)).find((a) => a.clientName === clientName);
  if (!app) throw new Error(`${clientName} is not listed for ${user}`);
  return { accessToken: tokens.access_token, app };
}

const callMcp = (accessToken: string) =>
  SELF.fetch(MCP, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });

describe("Connected apps", () => {
  it("lists the app with its client, redirect host and last use, and changes its sampling permission", async () => {
    const before = Date.now();
    const { app } = await connectApp("alice", "Alice's Editor");
    expect(app).toMatchObject({ clientName: "Alice's Editor", redirectHost: "client.example", sampling: false, lastUsed: null });
    expect(app.connectedAt).toBeGreaterThanOrEqual(before);
    // The app's object reports a use (at most once a minute) through the account.
    const usedAt = Date.now();
    await userAccount(env as unknown as Env, tokenUserId("alice")).appUsed(app.id, usedAt);
    expect((await apps("alice")).find((a) => a.id === app.id)?.lastUsed).toBe(usedAt);
    const patched = await api(`/api/apps/${app.id}`, "alice", { method: "PATCH", body: JSON.stringify({ sampling: true }) });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { app: AppView }).app.sampling).toBe(true);
    const one = await api(`/api/apps/${app.id}`, "alice");
    expect(((await one.json()) as { app: AppView }).app).toMatchObject({ id: app.id, sampling: true, lastUsed: usedAt });
    const bad = await api(`/api/apps/${app.id}`, "alice", { method: "PATCH", body: JSON.stringify({ sampling: "yes" }) });
    expect(bad.status).toBe(400);
  });

  it("bob cannot read, change or disconnect alice's app: 404 app_not_found, and it keeps working", async () => {
    const { accessToken, app } = await connectApp("alice", "Alice's Private App");
    expect((await apps("bob")).map((a) => a.id)).not.toContain(app.id);
    for (const init of [{}, { method: "PATCH", body: JSON.stringify({ sampling: true }) }, { method: "DELETE" }]) {
      const response = await api(`/api/apps/${app.id}`, "bob", init);
      expect(response.status, init.method ?? "GET").toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("app_not_found");
    }
    expect((await apps("alice")).find((a) => a.id === app.id)?.sampling).toBe(false);
    expect((await callMcp(accessToken)).status).not.toBe(401);
    const malformed = await api("/api/apps/not-an-id", "alice");
    expect(malformed.status).toBe(404);
  });

  it("Delete my data disconnects every app: its next call is 401 and the list is empty", async () => {
    const first = await connectApp("dave", "Dave One");
    const second = await connectApp("dave", "Dave Two");
    expect((await callMcp(first.accessToken)).status).not.toBe(401);
    const erased = await api("/api/account", "dave", { method: "DELETE" });
    expect(erased.status).toBe(200);
    expect(((await erased.json()) as { deleted: { apps: number } }).deleted.apps).toBe(2);
    expect((await callMcp(first.accessToken)).status).toBe(401);
    expect((await callMcp(second.accessToken)).status).toBe(401);
    expect(await apps("dave")).toEqual([]);
  });
});
