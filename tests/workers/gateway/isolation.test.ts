// One person's app object never serves another: bob's app does not list alice's runtime
// server (nor call it), bob's grant props are refused at alice's object, and a 2025
// session alice opened cannot be used with bob's props, at her object or at his.
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { connectApp, directFetch, MCP_URL, mcpClient } from "../../fixtures/gateway-direct";
import { authHeaders, type TestUser } from "../test-users";

const everything = inject("everythingUrl");
const json = { "content-type": "application/json" };
const server = `al${crypto.randomUUID().slice(0, 6)}`;

const api = (path: string, init: RequestInit = {}, user: TestUser = "alice") =>
  SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders(user, init.headers) });

const listRequest = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} });

beforeAll(async () => {
  const added = await api("/api/my-servers", { method: "POST", headers: json, body: JSON.stringify({ name: server, url: everything, alwaysAllow: ["echo"] }) });
  expect(added.status).toBe(201);
});

afterAll(async () => {
  await api(`/api/my-servers/${server}`, { method: "DELETE" });
});

describe("per-person isolation at /mcp", () => {
  it("bob's app never lists or calls alice's runtime server, which alice's app does", async () => {
    const alice = await mcpClient(await connectApp("alice"), "2026");
    const bob = await mcpClient(await connectApp("bob"), "2026");
    try {
      const aliceTools = (await alice.client.listTools()).tools.map((t) => t.name);
      expect(aliceTools).toContain(`${server}__echo`);
      const bobTools = (await bob.client.listTools()).tools.map((t) => t.name);
      expect(bobTools.filter((name) => name.startsWith(`${server}__`))).toEqual([]);
      await expect(bob.client.callTool({ name: `${server}__echo`, arguments: { message: "not yours" } })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await Promise.all([alice.client.close(), bob.client.close()]);
    }
  });

  it("refuses bob's props at alice's object, and alice's 2025 session under bob's props", async () => {
    const aliceProps = await connectApp("alice");
    const bobProps = await connectApp("bob");
    const { client, transport } = await mcpClient(aliceProps, "2025");
    try {
      const sessionId = transport.sessionId;
      expect(sessionId).toMatch(/.+/);
      const headers = { ...json, accept: "application/json, text/event-stream", "mcp-session-id": sessionId ?? "", "mcp-protocol-version": "2025-11-25" };
      // Her own props in her session: answered.
      const own = await directFetch(aliceProps.appId, aliceProps)(MCP_URL, { method: "POST", headers, body: listRequest });
      expect(own.status).toBe(200);
      expect(await own.text()).toContain(`${server}__echo`);
      // Bob's props at her object (her session id or none): 401 before any lane.
      const atHers = await directFetch(aliceProps.appId, bobProps)(MCP_URL, { method: "POST", headers, body: listRequest });
      expect(atHers.status).toBe(401);
      expect(await atHers.text()).not.toContain(server);
      // Her session id at bob's own object: no such session there.
      const atHis = await directFetch(bobProps.appId, bobProps)(MCP_URL, { method: "POST", headers, body: listRequest });
      expect(atHis.status).toBe(404);
      expect(await atHis.text()).not.toContain(server);
    } finally {
      await client.close();
    }
  });
});
