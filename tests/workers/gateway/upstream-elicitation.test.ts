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
const everything = inject("everythingUrl");
const json = { "content-type": "application/json" };
const server = `uq${crypto.randomUUID().slice(0, 6)}`;
const ask = `${server}__ask`;
/** server-everything (a 2025 server: a real elicitation/create during the call), its tools allowed without asking. */
const busy = `uqe${crypto.randomUUID().slice(0, 5)}`;
const LONG = "trigger-long-running-operation";
const ELICIT = "trigger-elicitation-request";
const api = (path: string, init: RequestInit = {}) => SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders("alice", init.headers) });

beforeAll(async () => {
  const added = await api("/api/my-servers", { method: "POST", headers: json, body: JSON.stringify({ name: server, url: v2 }) });
  expect(added.status).toBe(201);
  const second = await api("/api/my-servers", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ name: busy, url: everything, alwaysAllow: [LONG, ELICIT] }),
  });
  expect(second.status).toBe(201);
});

afterAll(async () => {
  await api(`/api/my-servers/${server}`, { method: "DELETE" });
  await api(`/api/my-servers/${busy}`, { method: "DELETE" });
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
  // Every requestState the client echoed back (a test replays one).
  const states: string[] = [];
  const fetch = directFetch(props.appId, props);
  const recording: typeof fetch = (input, init) => {
    if (typeof init?.body === "string") {
      const state = (JSON.parse(init.body) as { params?: { requestState?: unknown } }).params?.requestState;
      if (typeof state === "string") states.push(state);
    }
    return fetch(input, init);
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: recording }));
  return { client, asked, states };
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

describe("an answer reaches only the question it was asked for", () => {
  /**
   * A call that claims to answer question q1 with "Mallory" under `requestState` (the client's
   * params type does not list the 2026 retry fields: they are added to a built object).
   */
  const claiming = (requestState: string | undefined, args: Record<string, unknown> = {}): Parameters<Client["callTool"]>[0] => {
    const params = { name: ask, arguments: args, requestState, inputResponses: { q1: { action: "accept", content: { name: "Mallory" } } } };
    return params;
  };

  it("a forged state is no answer: the server asks again", async () => {
    const { client, asked } = await askingClient(await connectApp("alice", "Question Test"), "2026", () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    try {
      const result = await client.callTool(claiming("v1.e30.AAAA"));
      expect(text(result)).toContain("Hello, Ada!");
      expect(text(result)).not.toContain("Mallory");
      expect(asked).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("a state replayed after its call ended: cancelled, call it again", async () => {
    const { client, states } = await askingClient(await connectApp("alice", "Question Test"), "2026", () => ({
      action: "accept",
      content: { name: "Ada" },
    }));
    try {
      expect(text(await client.callTool({ name: ask, arguments: {} }))).toContain("Hello, Ada!");
      const used = states.at(-1);
      expect(used).toBeDefined();
      const replay = client.callTool(claiming(used));
      await expect(replay).rejects.toThrow(/is not running any more: call it again/);
      // The same state for other arguments is no state of this call: a fresh call, asked again.
      expect(text(await client.callTool(claiming(used, { extra: 1 })))).toContain("Hello, Ada!");
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

describe("two calls to the server in flight", () => {
  it("its question is answered cancel (which call asked is unknown); alone, the same call is asked", { timeout: 60_000 }, async () => {
    const props = await connectApp("alice", "Busy Client");
    const { client, asked } = await askingClient(props, "2026", () => ({ action: "decline" }));
    const other = await mcpClient(props, "2026");
    try {
      // A long call (12 s) of the same app to the same server, seen running by its first progress.
      let running!: () => void;
      const progressed = new Promise<void>((resolve) => {
        running = resolve;
      });
      const long = other.client.callTool(
        { name: `${busy}__${LONG}`, arguments: { duration: 12, steps: 12 } },
        { onprogress: () => running(), timeout: 60_000 },
      );
      await progressed;

      const ambiguous = await client.callTool({ name: `${busy}__${ELICIT}`, arguments: {} });
      expect(text(ambiguous)).toContain(`edgehost answered a question from \\"${busy}\\" with cancel: 2 calls to it were running here`);
      expect(asked).toHaveLength(0);
      // The long call was not touched by the other's question.
      expect(text(await long)).toContain("Long running operation completed");

      // The long call ended: the one call in flight is asked, and its answer reaches the server.
      const alone = await client.callTool({ name: `${busy}__${ELICIT}`, arguments: {} });
      expect(asked).toHaveLength(1);
      expect(asked[0]?.message).toBe(`"${busy}" asks: Please provide inputs for the following fields:`);
      expect(text(alone)).toContain("declined");
    } finally {
      await Promise.all([client.close(), other.client.close()]);
    }
  });
});
