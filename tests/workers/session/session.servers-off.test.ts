// Servers a session switched off (issue 27), in real workerd with the real
// ChatSession and the bridge running server-filesystem and server-everything: after
// a wake, a switched-off server is not connected at all (state "disabled", no
// tools), and switching it on connects it. What servers offered is kept one
// storage row per server; a row too large for storage is reported and the others
// are kept.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ToolView } from "../../../src/mcp/capabilities";
import type { ServerMessage } from "../../../src/protocol/messages";
import type { ServerInfo } from "../../../src/session/answers";
import type { ChatSession } from "../../../src/session/ChatSession";
import { DiscoveryCache } from "../../../src/session/mcp/discovery-cache";
import { HistoryStore } from "../../../src/session/history";
import type { McpConfig } from "../../../src/shared/mcp-config/config";
import { openSession } from "../worker-fetch";

type Servers = Extract<ServerMessage, { type: "servers" }>["servers"];
const stubOf = (id: string) => getAgentByName((env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>, id);
const stateOf = (servers: Servers, name: string) => servers.find((s) => s.name === name);

describe("servers switched off in a session", () => {
  it("are not connected after a wake, and connect when switched on", async () => {
    const id = crypto.randomUUID();
    const first = await openSession(id);
    await first.next((m) => m.type === "servers" && m.servers.length > 0 && m.servers.every((s) => s.state === "ready"));
    first.send({ type: "set_servers", enabled: ["filesystem"] });
    await first.next((m) => m.type === "servers" && stateOf(m.servers, "everything")?.enabled === false);
    first.close();
    await abortAllDurableObjects();

    const socket = await openSession(id);
    const settled = (await socket.next(
      (m) => m.type === "servers" && stateOf(m.servers, "filesystem")?.state === "ready" && stateOf(m.servers, "everything")?.state !== "connecting",
    )) as Extract<ServerMessage, { type: "servers" }>;
    expect(stateOf(settled.servers, "everything")).toMatchObject({ state: "disabled", enabled: false, toolCount: 0 });
    const stub = await stubOf(id);
    const info = async () => ((await stub.serversInfo()) as unknown as ServerInfo[]).find((s) => s.name === "everything");
    expect((await info())?.tools).toEqual([]);

    const from = socket.received.length;
    socket.send({ type: "set_servers", enabled: ["filesystem", "everything"] });
    await socket.next(
      (m) => m.type === "servers" && stateOf(m.servers, "everything")?.state === "ready" && stateOf(m.servers, "everything")?.enabled === true,
      from,
    );
    expect((await info())?.tools.length).toBeGreaterThan(0);
    socket.close();
  });

  it("keeps discovery per server, and reports a server whose row is too large to store", async () => {
    const stub = await stubOf(crypto.randomUUID());
    await runInDurableObject(stub, (_instance, state) => {
      const store = new HistoryStore(state.storage.sql);
      const server = (name: string) => ({ name, transport: "http", url: `https://${name}.example/mcp`, headers: {}, disabled: false, dependencies: [] });
      const config = { servers: [server("small"), server("huge")] } as unknown as McpConfig;
      const tool = (name: string, description: string): ToolView => ({
        server: name,
        name: "t",
        qualifiedName: `${name}.t`,
        functionName: `${name}__t`,
        description,
        inputSchema: { type: "object" },
      });
      const failed: { server: string; chars: number }[] = [];
      const cache = new DiscoveryCache(store, config, (name, _error, chars) => failed.push({ server: name, chars }));
      // Over a row's 2 MB.
      cache.save([tool("small", "fits"), tool("huge", "x".repeat(2_200_000))], [], ["small", "huge"]);
      expect(failed).toEqual([{ server: "huge", chars: expect.any(Number) }]);
      expect(failed[0]?.chars).toBeGreaterThan(2_000_000);

      // A new cache (a later wake) reads the row that was kept, and misses the one that was not.
      const later = new DiscoveryCache(store, config);
      expect(later.get((name) => name === "small")?.tools.map((t) => t.description)).toEqual(["fits"]);
      expect(later.get(() => true)).toBeUndefined();
    });
  });
});
