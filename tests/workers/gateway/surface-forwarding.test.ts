// /mcp passes prompts/get, completion/complete and resources/(un)subscribe on to the person's
// server they name: the person's runtime server (server-everything over Streamable HTTP)
// reached with the SDK's v2 client at both eras; the bare-name map (MCP_GATEWAY_NAMES=bare,
// which the conformance script runs) with two servers offering the same prompt.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ServerCapabilitiesView } from "../../../src/mcp/capabilities";
import { PromptNames } from "../../../src/gateway/surface-forwarding";
import { connectApp, mcpClient } from "../../fixtures/gateway-direct";
import { SELF } from "cloudflare:test";
import { authHeaders } from "../test-users";

const workerFetch = (path: string, init: RequestInit = {}) =>
  SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders("alice", init.headers) });

const everything = inject("everythingUrl");
const server = `fw${crypto.randomUUID().slice(0, 6)}`;
const json = { "content-type": "application/json" };

beforeAll(async () => {
  const added = await workerFetch("/api/my-servers", { method: "POST", headers: json, body: JSON.stringify({ name: server, url: everything }) });
  expect(added.status).toBe(201);
});

afterAll(async () => {
  await workerFetch(`/api/my-servers/${server}`, { method: "DELETE" });
});

describe.each(["2026", "2025"] as const)("the SDK's client at %s", (era) => {
  it("gets a prompt by the name prompts/list gave, with its arguments", async () => {
    const { client } = await mcpClient(await connectApp("alice"), era);
    try {
      const { prompts } = await client.listPrompts();
      const args = prompts.find((p) => p.name === `${server}.args-prompt`);
      expect(args?.arguments?.map((a) => a.name)).toContain("city");
      const got = await client.getPrompt({ name: `${server}.args-prompt`, arguments: { city: "Lisbon" } });
      expect(JSON.stringify(got.messages)).toContain("Lisbon");
      await expect(client.getPrompt({ name: `${server}.no-such-prompt` })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("no-such-prompt"),
      });
    } finally {
      await client.close();
    }
  });

  it("forwards completion/complete for a prompt's argument, with the arguments filled in", async () => {
    const { client } = await mcpClient(await connectApp("alice"), era);
    try {
      await client.listPrompts();
      expect(client.getServerCapabilities()?.completions).toBeDefined();
      const ref = { type: "ref/prompt" as const, name: `${server}.completable-prompt` };
      const departments = await client.complete({ ref, argument: { name: "department", value: "S" } });
      expect(departments.completion.values.sort()).toEqual(["Sales", "Support"]);
      const names = await client.complete({ ref, argument: { name: "name", value: "" }, context: { arguments: { department: "Sales" } } });
      expect(names.completion.values).toEqual(["David", "Eve", "Frank"]);
      await expect(client.complete({ ref: { type: "ref/prompt", name: "nobody.nothing" }, argument: { name: "x", value: "" } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("nobody.nothing"),
      });
    } finally {
      await client.close();
    }
  });
});

// 2026-07-28 has no resources/subscribe (a listen stream's filter instead): the 2025 lane's.
describe("the SDK's client at 2025", () => {
  it("forwards resources/subscribe and unsubscribe to the server a read of the uri goes to", async () => {
    const { client } = await mcpClient(await connectApp("alice"), "2025");
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const { resources } = await client.listResources();
      const uri = resources.find((r) => r.uri.startsWith("demo://resource/static/"))?.uri;
      expect(uri).toBeDefined();
      expect(await client.subscribeResource({ uri: String(uri) })).toEqual({});
      expect(await client.unsubscribeResource({ uri: String(uri) })).toEqual({});
      await expect(client.subscribeResource({ uri: "nowhere://at/all" })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("nowhere://"),
      });
    } finally {
      await client.close();
    }
  });
});

describe("prompt names with MCP_GATEWAY_NAMES=bare", () => {
  const view = (name: string, prompts: string[]) =>
    ({ name, transport: "unknown", tools: [], resources: [], resourceTemplates: [], prompts: prompts.map((p) => ({ name: p })) }) as ServerCapabilitiesView;

  it("keeps a prompt's own name unless another offered prompt shares it, and maps each name back", () => {
    const names = new PromptNames([view("a", ["greet", "only-a"]), view("b", ["greet", "a.greet"])], "bare");
    expect(names.listed.map((p) => p.name)).toEqual(["a.greet", "only-a", "b.greet", "b.a.greet"]);
    expect(names.resolve("only-a")).toEqual({ server: "a", prompt: "only-a" });
    expect(names.resolve("b.greet")).toEqual({ server: "b", prompt: "greet" });
    expect(names.resolve("greet")).toBeUndefined();
    // Chat names: always qualified.
    expect(new PromptNames([view("a", ["only-a"])], "chat").listed.map((p) => p.name)).toEqual(["a.only-a"]);
  });
});
