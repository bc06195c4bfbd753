// A stdio child that speaks MCP 2026-07-28 itself (a v2 SDK server's serveStdio:
// tests/fixtures/v2-stdio-server.mjs) behind the real bridge: the bridge finds it by the
// `server/discover` probe and passes 2026 requests through untranslated (its own
// server/discover answer, its own input_required results), while 2025 clients still
// reach it through the bridge's envelope.
import { join } from "node:path";
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { connectModern, envelope, modernClient, modernHeaders, postRaw } from "../fixtures/bridge-modern";
import { repoRoot } from "../fixtures/servers";

const native = { command: process.execPath, args: [join(repoRoot, "tests", "fixtures", "v2-stdio-server.mjs")] };
const ELICIT = { elicitation: { form: {} } };
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge({ native }, ["--no-watch"]);
});
afterAll(async () => {
  await bridge?.stop();
});

const post = (id: number, method: string, params: Record<string, unknown>, name?: string) =>
  postRaw(bridge, "native", { jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope(ELICIT) } }, modernHeaders(method, name));

describe("bridge, a child that speaks 2026 over stdio", () => {
  it("passes server/discover and a call through to the child: its own answers, no translation", async () => {
    const discovered = await post(1, "server/discover", {});
    // The child's own list of revisions (2026 only), not the bridge's (2026 and the 2025 ones).
    expect(discovered.json.result.supportedVersions).toEqual(["2026-07-28"]);
    expect(discovered.json.result._meta["io.modelcontextprotocol/serverInfo"]).toEqual({ name: "v2-stdio-fixture", version: "2.0.0" });
    expect(discovered.json.result.instructions).toBe("A v2 stdio fixture.");

    const asked = await post(2, "tools/call", { name: "ask", arguments: {} }, "ask");
    expect(asked.json.id).toBe(2);
    // The child's input_required, untouched: its key, no requestState of the bridge's.
    expect(asked.json.result).toMatchObject({ resultType: "input_required", inputRequests: { name: { method: "elicitation/create" } } });
    expect(asked.json.result.requestState).toBeUndefined();
    const retried = await post(
      3,
      "tools/call",
      { name: "ask", arguments: {}, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } },
      "ask",
    );
    expect(retried.json.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Hello, Ada!" }] });
  });

  it("serves the v2 SDK client pinned to 2026, elicitation included", async () => {
    const client = modernClient(ELICIT);
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Grace" } };
    });
    await connectModern(bridge, "native", client);
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["ask", "echo", "grow", "touch"]));
      expect((await client.callTool({ name: "echo", arguments: { text: "through" } })).content).toEqual([{ type: "text", text: "through" }]);
      expect((await client.callTool({ name: "ask", arguments: {} })).content).toEqual([{ type: "text", text: "Hello, Grace!" }]);
      expect(asked).toEqual([expect.objectContaining({ message: "What is your name?" })]);
    } finally {
      await client.close();
    }
  });

  it("gives a 2026 client's subscriptions/listen the child's list_changed", async () => {
    const client = modernClient(ELICIT);
    await connectModern(bridge, "native", client);
    try {
      const changed = new Promise<Record<string, unknown> | undefined>((resolve) =>
        client.setNotificationHandler("notifications/tools/list_changed", (n) => resolve(n.params as Record<string, unknown> | undefined)),
      );
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
      expect((await client.callTool({ name: "grow", arguments: {} })).content).toEqual([{ type: "text", text: "extra-1" }]);
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("extra-1");
      await subscription.close();
      expect(await subscription.closed).toBe("local");
    } finally {
      await client.close();
    }
  });

  it("carries the child's change notifications to 2025 sessions, and their resource subscriptions to the child", async () => {
    const { client } = await connectClient(bridge, "native", {}, "ada");
    try {
      const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      const updated = new Promise<string>((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
      await client.subscribeResource({ uri: "note://board" });
      await client.callTool({ name: "grow", arguments: {} });
      await changed;
      await client.callTool({ name: "touch", arguments: { text: "new" } });
      expect(await updated).toBe("note://board");
      expect((await client.readResource({ uri: "note://board" })).contents).toMatchObject([{ uri: "note://board", text: "new" }]);
    } finally {
      await client.close();
    }
  });

  it("still serves a 2025 client (the v1 SDK's) through the bridge's envelope, the child's questions put to it", async () => {
    const { client } = await connectClient(bridge, "native", { elicitation: {} }, "ada");
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Ada" } };
    });
    try {
      expect(client.getServerVersion()).toEqual({ name: "v2-stdio-fixture", version: "2.0.0" });
      const tools = await client.listTools();
      // The child is shared: an earlier test may have grown its list.
      expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["ask", "echo", "grow"]));
      expect(tools).not.toHaveProperty("resultType");
      const echoed = await client.callTool({ name: "echo", arguments: { text: "old client" } });
      expect(echoed).toEqual({ content: [{ type: "text", text: "old client" }] });
      // The child's input_required becomes an elicitation request to the session; the answer goes back in its retry.
      expect((await client.callTool({ name: "ask", arguments: {} })).content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
      expect(asked).toEqual([expect.objectContaining({ message: "What is your name?" })]);
    } finally {
      await client.close();
    }
  });
});

// A hand-written 2025 server that exits when its first message is not initialize (some
// older servers cannot take any request before the handshake).
const STRICT = `
const rl = require("node:readline").createInterface({ input: process.stdin });
let first = true;
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (first && m.method !== "initialize") process.exit(3);
  first = false;
  if (m.method === "initialize") send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "strict", version: "1" } } });
  else if (m.method === "tools/list") send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "hi", inputSchema: { type: "object" } }] } });
  else if (m.id !== undefined) send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "hi" }] } });
});`;

describe("bridge, a child that speaks 2026, and a 2025 client that cannot answer its question", () => {
  it("answers the call with an error naming what failed, not a hang", async () => {
    const { client } = await connectClient(bridge, "native", {}, "bob");
    try {
      await expect(client.callTool({ name: "ask", arguments: {} })).rejects.toThrow(/question could not be put to the client/);
      expect((await client.callTool({ name: "echo", arguments: { text: "still here" } })).content).toEqual([{ type: "text", text: "still here" }]);
    } finally {
      await client.close();
    }
  });
});

describe("bridge, a 2025 child that cannot take the server/discover probe", () => {
  it("is started again at once without it and serves as before", async () => {
    const strict = await startBridge({ strict: { command: process.execPath, args: ["-e", STRICT] } }, ["--no-watch"]);
    try {
      const { client } = await connectClient(strict, "strict");
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["hi"]);
      await client.close();
      expect((await strict.health()).servers.strict?.state).toBe("ready");
    } finally {
      await strict.stop();
    }
  });
});
