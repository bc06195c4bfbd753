// An upstream server's sampling request during a call from a connected app is refused
// (sampling_not_allowed, -31103) before any model is asked: an app may not spend the
// person's model budget; one allowed to is refused too in this release (no model is asked at /mcp yet).
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { appStub, connectApp, mcpClient } from "../../fixtures/gateway-direct";
import { authHeaders } from "../test-users";

const everything = inject("everythingUrl");
const json = { "content-type": "application/json" };
const server = `sm${crypto.randomUUID().slice(0, 6)}`;
const api = (path: string, init: RequestInit = {}) => SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders("alice", init.headers) });

beforeAll(async () => {
  const body = JSON.stringify({ name: server, url: everything, alwaysAllow: ["trigger-sampling-request"] });
  expect((await api("/api/my-servers", { method: "POST", headers: json, body })).status).toBe(201);
});

afterAll(async () => {
  await api(`/api/my-servers/${server}`, { method: "DELETE" });
});

it("refuses an upstream server's sampling request during an app's call with sampling_not_allowed", async () => {
  const { client } = await mcpClient(await connectApp("alice"), "2026");
  try {
    const result = await client.callTool({ name: `${server}__trigger-sampling-request`, arguments: { prompt: "write a poem", maxTokens: 20 } });
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain("-31103");
    expect(text).toContain("may not spend your model budget");
  } finally {
    await client.close();
  }
});

it("refuses it too for an app allowed to spend the budget, saying sampling at /mcp is not answered yet", async () => {
  const props = await connectApp("alice");
  await appStub(props.appId).activate({
    owner: props.identity,
    gen: props.gen,
    client: { ...props.client, redirectHost: "127.0.0.1" },
    samplingAllowed: true,
  });
  const { client } = await mcpClient(props, "2026");
  try {
    const result = await client.callTool({ name: `${server}__trigger-sampling-request`, arguments: { prompt: "write a poem", maxTokens: 20 } });
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain("-31103");
    expect(text).toContain("not answered yet, even for an app allowed");
  } finally {
    await client.close();
  }
});
