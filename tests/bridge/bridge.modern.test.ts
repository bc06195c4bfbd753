// MCP 2026-07-28 through the real bridge, in front of real 2025 stdio servers: the v2 SDK
// client pinned to the new revision (and negotiating in `auto` mode) gets the stateless
// core on the same /servers/{name}/mcp endpoint a v1 client keeps its session on, and
// raw POSTs check the headers, envelope and errors the revision names.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { connectModern, envelope, MODERN, modernClient as newModern, modernHeaders, postRaw } from "../fixtures/bridge-modern";
import { everythingBin, filesystemBin } from "../fixtures/servers";

const ENVELOPE = envelope();

let bridge: RunningBridge;
const files = mkdtempSync(join(tmpdir(), "bridge-modern-"));
writeFileSync(join(files, "hello.txt"), "hello from 2026");

beforeAll(async () => {
  bridge = await startBridge(
    {
      everything: { command: process.execPath, args: [everythingBin, "stdio"] },
      files: { command: process.execPath, args: [filesystemBin, files] },
      mine: { command: process.execPath, args: [everythingBin, "stdio"], isolation: "user" },
    },
    ["--no-watch"],
  );
});
afterAll(async () => {
  await bridge?.stop();
});

const modernClient = (server: string, mode: "pin" | "auto", user?: string) => connectModern(bridge, server, newModern({}, mode), user);
const post = (server: string, body: unknown, headers: Record<string, string> = {}) => postRaw(bridge, server, body, headers);

describe("bridge, MCP 2026-07-28 beside 2025", () => {
  it("serves a pinned 2026 client statelessly: discover, lists, calls, no session id", async () => {
    const client = await modernClient("everything", "pin");
    try {
      expect([client.getProtocolEra(), client.getNegotiatedProtocolVersion()]).toEqual(["modern", MODERN]);
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain("echo");
      const result = await client.callTool({ name: "echo", arguments: { message: "hi 2026" } });
      expect(JSON.stringify(result.content)).toContain("hi 2026");
      const fsClient = await modernClient("files", "auto");
      expect(fsClient.getProtocolEra()).toBe("modern");
      const read = await fsClient.callTool({ name: "read_text_file", arguments: { path: join(files, "hello.txt") } });
      expect(JSON.stringify(read.content)).toContain("hello from 2026");
      await fsClient.close();
    } finally {
      await client.close();
    }
    // The v1 client keeps its session on the same endpoint.
    const { client: v1, transport } = await connectClient(bridge, "everything");
    expect(transport.sessionId).toBeTruthy();
    const echoed = await v1.callTool({ name: "echo", arguments: { message: "hi 2025" } });
    expect(JSON.stringify(echoed.content)).toContain("hi 2025");
    await v1.close();
  });

  it("answers server/discover with both eras' versions, the child's identity and cache hints, and sets no Mcp-Session-Id", async () => {
    const res = await post("everything", { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } }, modernHeaders("server/discover"));
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(res.json.result.supportedVersions).toEqual(expect.arrayContaining([MODERN, "2025-11-25"]));
    expect(res.json.result.resultType).toBe("complete");
    expect(res.json.result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: "private" });
    expect(res.json.result._meta["io.modelcontextprotocol/serverInfo"].name).toBeTruthy();
    expect(res.json.result.capabilities.tools).toBeDefined();
  });

  it("refuses what the revision refuses, with its codes and statuses", async () => {
    const call = (meta: unknown = ENVELOPE) => ({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "x" }, _meta: meta },
    });
    // Mcp-Method disagreeing with the body.
    let res = await post("everything", call(), modernHeaders("tools/list", "echo"));
    expect([res.status, res.json.error.code]).toEqual([400, -32020]);
    // Mcp-Name disagreeing, and missing.
    res = await post("everything", call(), modernHeaders("tools/call", "other"));
    expect([res.status, res.json.error.code]).toEqual([400, -32020]);
    res = await post("everything", call(), modernHeaders("tools/call"));
    expect([res.status, res.json.error.code]).toEqual([400, -32020]);
    // Mcp-Method missing.
    res = await post("everything", call(), { "mcp-protocol-version": MODERN, "mcp-name": "echo" });
    expect([res.status, res.json.error.code]).toEqual([400, -32020]);
    // Header naming another version than the envelope.
    res = await post("everything", call(), { ...modernHeaders("tools/call", "echo"), "mcp-protocol-version": "2025-11-25" });
    expect([res.status, res.json.error.code]).toEqual([400, -32020]);
    // Envelope without client capabilities.
    res = await post("everything", call({ "io.modelcontextprotocol/protocolVersion": MODERN }), modernHeaders("tools/call", "echo"));
    expect([res.status, res.json.error.code]).toEqual([400, -32602]);
    // A modern header and no envelope.
    res = await post("everything", { jsonrpc: "2.0", id: 8, method: "tools/list" }, modernHeaders("tools/list"));
    expect([res.status, res.json.error.code]).toEqual([400, -32602]);
    // A revision the bridge does not speak.
    const future = { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    res = await post("everything", call(future), { ...modernHeaders("tools/call", "echo"), "mcp-protocol-version": "2099-01-01" });
    expect([res.status, res.json.error.code]).toEqual([400, -32022]);
    expect(res.json.error.data).toEqual({ supported: expect.arrayContaining([MODERN]), requested: "2099-01-01" });
    // Methods of 2025 only (initialize's handshake, ping) are not in the revision.
    res = await post("everything", { jsonrpc: "2.0", id: 9, method: "ping", params: { _meta: ENVELOPE } }, modernHeaders("ping"));
    expect([res.status, res.json.error.code]).toEqual([404, -32601]);
    // And a good one goes through, with a Base64 Mcp-Name.
    res = await post("everything", call(), modernHeaders("tools/call", `=?base64?${Buffer.from("echo").toString("base64")}?=`));
    expect(res.status).toBe(200);
    expect(res.json.result.resultType).toBe("complete");
    expect(JSON.stringify(res.json.result.content)).toContain("x");
  });

  it("negotiates in auto mode, and keeps isolated servers' children per user for 2026 requests too", async () => {
    const ada = await modernClient("mine", "auto", "ada");
    const bob = await modernClient("mine", "auto", "bob");
    try {
      expect([ada.getProtocolEra(), bob.getProtocolEra()]).toEqual(["modern", "modern"]);
      await ada.callTool({ name: "echo", arguments: { message: "a" } });
      await bob.callTool({ name: "echo", arguments: { message: "b" } });
      const health = await bridge.health();
      expect(health.servers.mine?.userChildren).toBe(2);
    } finally {
      await ada.close();
      await bob.close();
    }
  });

  it("carries the child's resources/updated to a subscriptions/listen stream the v2 client opened, and closes it", async () => {
    const client = await modernClient("everything", "pin");
    try {
      const { resources } = await client.listResources();
      const uri = resources[0]?.uri ?? "";
      expect(uri).not.toBe("");
      const updated = new Promise<{ uri: string; _meta?: Record<string, unknown> }>((resolve) =>
        client.setNotificationHandler("notifications/resources/updated", (n) => resolve(n.params as { uri: string })),
      );
      const subscription = await client.listen({ resourceSubscriptions: [uri], promptsListChanged: true, toolsListChanged: true });
      expect(subscription.honoredFilter.resourceSubscriptions).toEqual([uri]);
      // server-everything sends an update for every subscribed resource at once when asked to start.
      await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
      const note = await updated;
      expect(note.uri).toBe(uri);
      expect((await bridge.health()).servers.everything?.sessions).toBeGreaterThanOrEqual(1);
      await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
      await subscription.close();
      expect(await subscription.closed).toBe("local");
    } finally {
      await client.close();
    }
  });

  it("acknowledges a raw subscriptions/listen first, with what the child honours and the subscription id", async () => {
    const abort = new AbortController();
    const res = await fetch(`${bridge.url}/servers/everything/mcp`, {
      method: "POST",
      signal: abort.signal,
      headers: {
        authorization: `Bearer ${bridge.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...modernHeaders("subscriptions/listen"),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "sub-1",
        method: "subscriptions/listen",
        params: { _meta: ENVELOPE, notifications: { toolsListChanged: true, resourceSubscriptions: [] } },
      }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body?.getReader();
    let text = "";
    while (!text.includes("\n\n")) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) break;
      text += Buffer.from(chunk.value).toString();
    }
    abort.abort();
    const ack = JSON.parse(/data: (.*)/.exec(text)?.[1] ?? "null");
    expect(ack).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" } } });
    // server-everything declares tools.listChanged; an empty list of resources is nothing to honour.
    expect(ack.params.notifications).toEqual({ toolsListChanged: true });
  });
});
