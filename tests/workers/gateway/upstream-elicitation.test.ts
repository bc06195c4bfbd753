// An upstream server's own question during a connected app's call (issue 38, design §2.6):
// the v2 fixture's `ask` tool answers a 2026 call with an input_required elicitation ("What
// is your name?"), which the app object's host turns into a question to the person. A client
// that declared form elicitation is asked it (2026: input_required and a retry; 2025: a real
// elicitation/create from the SDK's shim) and its answer reaches the server; a client that
// cannot be asked gets the call's result at once — the server's question answered `cancel`
// and the result saying why — instead of hanging until its own timeout.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { GrantProps } from "../../../src/gateway/props";
import { connectApp, directFetch, MCP_URL, mcpClient } from "../../fixtures/gateway-direct";
import { authHeaders } from "../test-users";

const v2 = inject("v2BothUrl");
const json = { "content-type": "application/json" };
const server = `uq${crypto.randomUUID().slice(0, 6)}`;
const ask = `${server}__ask`;
const api = (path: string, init: RequestInit = {}) => SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders("alice", init.headers) });

beforeAll(async () => {
  const added = await api("/api/my-servers", { method: "POST", headers: json, body: JSON.stringify({ name: server, url: v2 }) });
  expect(added.status).toBe(201);
});

afterAll(async () => {
  await api(`/api/my-servers/${server}`, { method: "DELETE" });
});

type Answer = { action: "accept"; content: Record<string, string> } | { action: "decline" | "cancel" };

/**
 * A client that can elicit: the gateway's approval question is answered "always" (the tool
 * then runs without asking for this app); every other question is written down and answered with `answer()`.
 */
async function askingClient(props: GrantProps, era: "2026" | "2025", answer: () => Answer) {
  const asked: { message: string; schema: unknown }[] = [];
  const client = new Client(
    { name: "upstream-question-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, ...(era === "2026" ? { versionNegotiation: { mode: "auto" as const } } : {}) },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    if (request.params.message.includes("wants to run")) return { action: "accept", content: { decision: "always" } };
    asked.push({ message: request.params.message, schema: "requestedSchema" in request.params ? request.params.requestedSchema : undefined });
    return answer();
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: directFetch(props.appId, props) }));
  return { client, asked };
}

const text = (result: { content?: unknown }) => JSON.stringify(result.content);

describe("a client that can elicit is asked the server's question", () => {
  it.each(["2026", "2025"] as const)("%s: its answer reaches the server, which greets it", async (era) => {
    const { client, asked } = await askingClient(await connectApp("alice", "Question Test"), era, () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    try {
      const result = await client.callTool({ name: ask, arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(text(result)).toContain("Hello, Ada!");
      expect(asked).toHaveLength(1);
      expect(asked[0]?.message).toBe(`"${server}" asks: What is your name?`);
      expect(asked[0]?.schema).toMatchObject({ type: "object", properties: { name: { type: "string" } } });
    } finally {
      await client.close();
    }
  });

  it("2026: a declined question reaches the server as decline", async () => {
    const { client, asked } = await askingClient(await connectApp("alice", "Question Test"), "2026", () => ({ action: "decline" }));
    try {
      const result = await client.callTool({ name: ask, arguments: {} });
      expect(text(result)).toContain("no name (decline)");
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe("a client that cannot elicit", () => {
  it.each(["2026", "2025"] as const)("%s: the server's question is answered cancel at once and the result says why", async (era) => {
    const props = await connectApp("alice", "Plain Client");
    // The same app through a client that can ask: "always" for the tool, so the plain client's call is not held for approval.
    const setup = await askingClient(props, "2026", () => ({ action: "accept", content: { name: "Setup" } }));
    await setup.client.callTool({ name: ask, arguments: {} }).finally(() => setup.client.close());

    const { client } = await mcpClient(props, era);
    try {
      const result = await client.callTool({ name: ask, arguments: {} });
      expect(text(result)).toContain("no name (cancel)");
      expect(text(result)).toContain(`edgehost answered a question from \\"${server}\\" with cancel: this client cannot be asked`);
    } finally {
      await client.close();
    }
  });
});
