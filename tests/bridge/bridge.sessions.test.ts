import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childrenOf, connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { ProbeLog } from "../fixtures/probe-log";
import { everythingBin, filesystemBin, probeServerBin } from "../fixtures/servers";

let bridge: RunningBridge;
const log = new ProbeLog();
const clients: Client[] = [];

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), "bridge-fs-"));
  bridge = await startBridge({
    everything: { command: process.execPath, args: [everythingBin, "stdio"] },
    fs: { command: process.execPath, args: [filesystemBin, root] },
    probe: { command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: log.path } },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  expect(await bridge.stop()).toBe(0);
});

async function client(server: string, capabilities = {}): Promise<Client> {
  const { client } = await connectClient(bridge, server, capabilities);
  clients.push(client);
  return client;
}

describe("bridge sessions", () => {
  it("serves many concurrent sessions from one child per server", async () => {
    const before = childrenOf(bridge.pid).sort();
    expect(before).toHaveLength(3);
    const sessions = await Promise.all(Array.from({ length: 20 }, () => client("everything")));
    const results = await Promise.all(sessions.map((c, i) => c.callTool({ name: "echo", arguments: { message: `s${i}` } })));
    expect(results.map((r) => (r.content as { text: string }[])[0]?.text)).toEqual(sessions.map((_, i) => `Echo: s${i}`));
    expect(childrenOf(bridge.pid).sort()).toEqual(before);
    const health = await bridge.health();
    expect(health.servers.everything?.sessions).toBeGreaterThanOrEqual(20);
    expect(health.servers.everything?.restarts).toBe(0);
  });

  it("answers initialize with the child's real capabilities and server info", async () => {
    const c = await client("everything");
    expect(c.getServerVersion()?.name).toBe("mcp-servers/everything");
    expect(c.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, prompts: {}, resources: { subscribe: true } });
    expect(c.getInstructions()).toContain("Everything Server");
    const fs = await client("fs");
    expect((await fs.listTools()).tools).toHaveLength(14);
  });

  it("passes progress notifications to the calling session only", async () => {
    const caller = await client("everything");
    const bystander = await client("everything");
    const seen: number[] = [];
    const result = await caller.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(seen.slice(0, 2)).toEqual([1, 2]);
    expect(JSON.stringify(result.content)).toContain("completed");
    expect((await bystander.callTool({ name: "echo", arguments: { message: "quiet" } })).content).toEqual([{ type: "text", text: "Echo: quiet" }]);
  });

  it("forwards cancellation to the child", async () => {
    const c = await client("probe");
    const controller = new AbortController();
    const call = c.callTool({ name: "slow", arguments: { ms: 30_000 } }, undefined, { signal: controller.signal });
    const started = await log.waitFor((e) => e.event === "call" && e.tool === "slow");
    controller.abort("stop it");
    await expect(call).rejects.toThrow();
    const cancelled = await log.waitFor((e) => e.event === "cancelled");
    expect(cancelled.requestId).toBe(started.requestId);
  });

  it("forwards list_changed and resources/updated to the sessions they concern", async () => {
    const a = await client("probe");
    const b = await client("probe");
    const changed = new Promise<void>((resolve) => a.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const updated: string[] = [];
    b.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await b.subscribeResource({ uri: "probe://counter" });
    // a's call carries a's stream; the list_changed the child sends meanwhile rides on it.
    await a.callTool({ name: "add_tool", arguments: { name: `t${Date.now()}` } });
    await changed;
    await b.callTool({ name: "touch", arguments: {} });
    expect(updated).toEqual(["probe://counter"]);
  });

  it("forwards logging messages to the session whose call was in flight", async () => {
    const c = await client("probe");
    const messages: unknown[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    expect((await c.callTool({ name: "log", arguments: {} })).content).toEqual([{ type: "text", text: "logged" }]);
    expect(messages).toEqual([{ level: "info", logger: "probe", data: "probe says hi" }]);
  });

  it("routes sampling to the session whose call caused it, and elicitation back with the answer", async () => {
    const asked: string[] = [];
    const caller = await client("everything", { sampling: {}, elicitation: {} });
    const other = await client("everything", { sampling: {}, elicitation: {} });
    caller.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push("caller");
      return { role: "assistant", model: "m", content: { type: "text", text: "from the caller" } };
    });
    other.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push("other");
      return { role: "assistant", model: "m", content: { type: "text", text: "from the other" } };
    });
    caller.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Grace" } }));
    const sampled = await caller.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hi" } });
    expect(JSON.stringify(sampled.content)).toContain("from the caller");
    expect(asked).toEqual(["caller"]);
    const elicited = await caller.callTool({ name: "trigger-elicitation-request", arguments: {} });
    expect(JSON.stringify(elicited.content)).toContain("Grace");
  });
});
