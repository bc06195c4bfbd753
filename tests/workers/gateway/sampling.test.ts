// An upstream server's sampling request during a call from a connected app: refused
// (sampling_not_allowed, -31103) before any model is asked unless the person let that app
// spend their model budget; then the deployment's model answers it (the fake Gemini records
// what it was sent) and the tokens count in the person's daily budget.
import { env, SELF } from "cloudflare:test";
import { afterAll, beforeAll, beforeEach, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { appStub, connectApp, mcpClient } from "../../fixtures/gateway-direct";
import { authHeaders } from "../test-users";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

const everything = inject("everythingUrl");
const json = { "content-type": "application/json" };
const server = `sm${crypto.randomUUID().slice(0, 6)}`;
const api = (path: string, init: RequestInit = {}) => SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders("alice", init.headers) });

beforeAll(async () => {
  const body = JSON.stringify({ name: server, url: everything, alwaysAllow: ["trigger-sampling-request"] });
  expect((await api("/api/my-servers", { method: "POST", headers: json, body })).status).toBe(201);
});

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
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

it("answers it with the deployment's model for an app allowed to spend the budget, and counts the tokens", async () => {
  const props = await connectApp("alice");
  await appStub(props.appId).activate({
    owner: props.identity,
    gen: props.gen,
    client: { ...props.client, redirectHost: "127.0.0.1" },
    samplingAllowed: true,
  });
  await script(llm, KEY, [reply.stream(["a sampled poem"], { usage: { input: 30, output: 12 } })]);
  const account = userAccount(env as unknown as Env, props.identity.id);
  const spentBefore = await account.tokensUsed();
  const { client } = await mcpClient(props, "2026");
  try {
    const result = await client.callTool({ name: `${server}__trigger-sampling-request`, arguments: { prompt: "write a poem", maxTokens: 20 } });
    expect(result.isError).toBeFalsy();
    // server-everything returns the CreateMessageResult it got: the model's text and name.
    const text = JSON.stringify(result.content);
    expect(text).toContain("a sampled poem");
    expect(text).toContain("gemini-2.5-flash");
  } finally {
    await client.close();
  }
  const sent = await requests(llm, KEY);
  expect(sent).toHaveLength(1);
  expect(sent[0]?.body).toMatchObject({
    contents: [{ role: "user", parts: [{ text: "Resource trigger-sampling-request context: write a poem" }] }],
    generationConfig: { maxOutputTokens: 20 },
  });
  const spentAfter = await account.tokensUsed();
  expect(spentAfter - spentBefore).toBe(42);
});
