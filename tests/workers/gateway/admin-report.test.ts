// An app's calls through /mcp reach the operator's view (/admin) as a chat's do: the tool's
// metrics count them (a runtime server's row named with its owner), a failed call is among
// the last errors with the app's session (`app:<appId>`), and the person is seen.
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, expect, inject, it, vi } from "vitest";
import type { AdminView } from "../../../src/http/admin-view";
import { connectApp, mcpClient } from "../../fixtures/gateway-direct";
import { authHeaders } from "../test-users";
import { workerFetch } from "../worker-fetch";

const v2 = inject("v2BothUrl");
const json = { "content-type": "application/json" };
const server = `ad${crypto.randomUUID().slice(0, 6)}`;
const api = (path: string, init: RequestInit = {}) => SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders("erin", init.headers) });

async function view(): Promise<AdminView> {
  const response = await workerFetch("/api/admin", {}, "dave");
  expect(response.status).toBe(200);
  return (await response.json()) as AdminView;
}

const echoRow = (seen: AdminView) => seen.tools.find((t) => t.server === `${server} (erin)` && t.tool === "echo");

beforeAll(async () => {
  const body = JSON.stringify({ name: server, url: v2, alwaysAllow: ["echo", "grow"] });
  expect((await api("/api/my-servers", { method: "POST", headers: json, body })).status).toBe(201);
});

afterAll(async () => {
  await api(`/api/my-servers/${server}`, { method: "DELETE" });
});

it("counts an app's tool calls in /admin's tool metrics and lists its failed call with the app's session", async () => {
  expect(echoRow(await view())).toBeUndefined();
  const props = await connectApp("erin", "Admin Desk");
  const { client } = await mcpClient(props, "2026");
  try {
    for (const text of ["one", "two"])
      expect(JSON.stringify((await client.callTool({ name: `${server}__echo`, arguments: { text } })).content)).toContain(text);
    // The fixture refuses a name outside ^[a-z_]{1,40}$: the call fails at the server.
    const failed = await client.callTool({ name: `${server}__grow`, arguments: { name: "Not-Valid" } });
    expect(failed.isError).toBe(true);
  } finally {
    await client.close();
  }
  // Reports go off the call's path, a few seconds apart at most (src/session/operations-report.ts).
  await vi.waitFor(
    async () => {
      const seen = await view();
      expect(echoRow(seen)).toMatchObject({ calls: 2, errors: 0, p50Ms: expect.any(Number) });
      expect(seen.tools.find((t) => t.server === `${server} (erin)` && t.tool === "grow")).toMatchObject({ calls: 1, errors: 1 });
      expect(seen.errors.find((e) => e.user === "erin" && e.tool === "grow")).toMatchObject({ source: "tool", session: `app:${props.appId}` });
      expect(seen.users.find((u) => u.name === "erin")?.lastSeen).toEqual(expect.any(Number));
    },
    { timeout: 10_000, interval: 200 },
  );
});
