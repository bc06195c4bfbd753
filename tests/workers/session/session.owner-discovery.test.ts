// A new session starts from what the owner's servers offered in their other sessions
// (issue 27, send → first token), in real workerd with the real ChatSession, the
// user's account and the fake Gemini: the first model call declares those tools at
// once, while the connections open; what a session finds is kept in the owner's
// account under the server's entry, and rows that do not fit the session's entry are
// left out.
import { env, runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ToolView } from "../../../src/mcp/capabilities";
import type { ChatSession } from "../../../src/session/ChatSession";
import { DiscoveryCache, serverKey } from "../../../src/session/mcp/discovery-cache";
import type { SessionMcp } from "../../../src/session/mcp/session-mcp";
import { HistoryStore } from "../../../src/session/history";
import type { McpConfig } from "../../../src/shared/mcp-config/config";
import { userAccount } from "../../../src/users/account";
import type { StoredUserServer } from "../../../src/users/user-servers";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { frameOf } from "../../fixtures/session-client";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const bindings = env as unknown as Env;
const stubOf = (id: string) => getAgentByName(bindings.CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>, id);
/** A server's entry as the session configured it, read inside the object (no RPC method exposes its configuration). */
async function entryOf(sessionId: string, server: string) {
  const entry = await runInDurableObject(await stubOf(sessionId), (instance) =>
    (instance as unknown as { parts: { mcp: SessionMcp } }).parts.mcp.configuredServers().find((s) => s.name === server),
  );
  if (!entry) throw new Error(`session ${sessionId} has no ${server} server`);
  return entry;
}
const declared = (body: Record<string, unknown> | undefined) =>
  ((body?.tools as { functionDeclarations?: { name: string }[] }[] | undefined) ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);

const tool = (server: string, name: string): ToolView => ({
  server,
  name,
  qualifiedName: `${server}.${name}`,
  functionName: `${server}__${name}`,
  description: "kept from another session",
  inputSchema: { type: "object", properties: {} },
});

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

describe("a new session of a user who used their servers before", () => {
  it("declares what the owner's servers offered on its first model call, without waiting for a server that has not answered", async () => {
    // carol's own server that never answers: a session that waited for its connections would never call the model.
    const account = userAccount(bindings, "token:carol");
    const silent: StoredUserServer = {
      name: "silent",
      url: `${llm}/__silent/mcp`,
      type: "http",
      headers: {},
      alwaysAllow: [],
      excludeTools: [],
      disabled: false,
    };
    expect(await account.putServer(silent, true)).toEqual({ ok: true });
    try {
      // Its entry as carol's sessions see it, and a row another session of hers kept for it.
      const first = await openSession(crypto.randomUUID(), "carol");
      await first.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "silent"));
      const key = serverKey(await entryOf(first.sessionId, "silent"));
      first.close();
      await account.keepDiscovery([{ server: "silent", key, row: JSON.stringify({ key, tools: [tool("silent", "remembered")] }) }]);

      await script(llm, KEY, [reply.text("hello")]);
      const fresh = await openSession(crypto.randomUUID(), "carol");
      fresh.send({ type: "set_servers", enabled: ["silent"] });
      const from = fresh.received.length;
      fresh.send({ type: "message", text: "hi" });
      const { end, messages } = await fresh.turnEnd(from);
      expect(end.reason).toBe("complete");
      expect(messages.filter(frameOf("text")).map((m) => m.delta)).toEqual(["hello"]);
      expect(declared((await requests(llm, KEY))[0]?.body)).toContain("silent__remembered");
      // The server never answered (it may have timed out by now on a loaded machine): the tools came from the owner's row.
      const states = fresh.received.filter(frameOf("servers")).map((f) => f.servers.find((s) => s.name === "silent")?.state);
      expect(states.length).toBeGreaterThan(0);
      expect(states).not.toContain("ready");
      fresh.close();
    } finally {
      await account.deleteServer("silent");
    }
  });

  it("keeps what a session's servers offered in the owner's account, under the server's entry", async () => {
    const socket = await openSession(crypto.randomUUID(), "bob");
    await socket.next((m) => m.type === "servers" && m.servers.length > 0 && m.servers.every((s) => s.state === "ready"));
    const entry = await entryOf(socket.sessionId, "filesystem");
    socket.close();
    const account = userAccount(bindings, "token:bob");
    // Kept after the session's connections opened (the socket saw them ready a moment before).
    await expect.poll(async () => ((await account.discoveryFor([{ server: "filesystem", key: serverKey(entry) }])) as { row: string }[]).length).toBe(1);
    const [kept] = (await account.discoveryFor([{ server: "filesystem", key: serverKey(entry) }])) as { row: string }[];
    expect((JSON.parse(kept?.row ?? "{}") as { tools: ToolView[] }).tools.map((t) => t.name)).toContain("list_directory");
    // Another entry (a changed mcp.json, another user's marked entry) does not match.
    expect(await account.discoveryFor([{ server: "filesystem", key: "v2:0:0" }])).toEqual([]);
  });

  it("takes only rows that fit the session's entry: the right key, the server's own tools, valid JSON", async () => {
    await runInDurableObject(await stubOf(crypto.randomUUID()), (_instance, state) => {
      const store = new HistoryStore(state.storage.sql);
      const server = (name: string) => ({ name, transport: "http", url: `https://${name}.example/mcp`, headers: {}, disabled: false, dependencies: [] });
      const config = { servers: [server("a"), server("b"), server("c"), server("d")] } as unknown as McpConfig;
      const cache = new DiscoveryCache(store, config);
      const key = (name: string) => serverKey(server(name) as unknown as McpConfig["servers"][number]);
      expect(cache.missing(() => true).map((m) => m.server)).toEqual(["a", "b", "c", "d"]);
      const taken = cache.seed([
        { server: "a", key: key("a"), row: JSON.stringify({ key: key("a"), tools: [tool("a", "one")] }) },
        // found with another entry of b
        { server: "b", key: key("b"), row: JSON.stringify({ key: "v2:1:1", tools: [tool("b", "one")] }) },
        // claims another server's tool
        { server: "c", key: key("c"), row: JSON.stringify({ key: key("c"), tools: [tool("a", "sneaky")] }) },
        { server: "d", key: key("d"), row: "{not json" },
        // not a server of this session
        { server: "e", key: "x", row: JSON.stringify({ key: "x", tools: [] }) },
      ]);
      expect(taken.map((t) => t.server)).toEqual(["a"]);
      expect(cache.missing(() => true).map((m) => m.server)).toEqual(["b", "c", "d"]);
      expect(cache.get((name) => name === "a")?.tools.map((t) => t.functionName)).toEqual(["a__one"]);
    });
  });
});
