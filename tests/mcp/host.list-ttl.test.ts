// Cacheable lists (MCP 2026-07-28 `ttlMs`/`cacheScope`, issue 34): a list the server says
// is fresh for a while is not read again by a connect within that time, from the same
// host (a reconnect) or from another host given the first one's lists (a session's rows);
// after the ttl, or with none, a connect reads it again. A resource read is served from the
// host's cache for its own ttl, and read again at once when it says 0. The server is the
// SDK's v2 server with cache hints (tests/fixtures/ttl-server.mjs), counting its methods.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListKind } from "../../src/mcp/discovery";
import type { KeptList } from "../../src/mcp/list-ttl";
import { SessionLists } from "../../src/session/mcp/kept-lists";
import { testHost } from "../fixtures/host";
import { httpServer } from "../fixtures/servers";
import { startTtlServer, type RunningTtlServer } from "../fixtures/ttl-servers";

let server: RunningTtlServer;
beforeAll(async () => {
  server = await startTtlServer();
});
afterAll(async () => {
  await server?.stop();
});

const count = (methods: string[], method: string) => methods.filter((m) => m === method).length;
const tag = () => crypto.randomUUID().slice(0, 8);

/** A session's kept lists, as a Map: what the host tells it and hands back while fresh. */
function memoryOf(kept: Map<string, KeptList>) {
  return {
    remembered: () => undefined,
    freshList: (name: string, kind: ListKind, now: number) => {
      const list = kept.get(`${name}/${kind}`);
      return list && list.expiresAt > now ? list : undefined;
    },
    listed: (name: string, kind: ListKind, list: KeptList | undefined) => void (list ? kept.set(`${name}/${kind}`, list) : kept.delete(`${name}/${kind}`)),
  };
}

describe("lists with a ttl", () => {
  it("are not read again by a reconnect within the ttl, and are after it", async () => {
    const t = tag();
    const { host, clock } = testHost();
    await host.connect({ servers: [httpServer("cached", server.url(t, 60_000, "private"))] });
    expect(host.tools().map((tool) => tool.name)).toEqual(["echo", "grow"]);
    expect(count(await server.methods(t), "tools/list")).toBe(1);

    clock.advance(59_000);
    expect(await host.reconnectServer("cached")).toBe("ready");
    expect(count(await server.methods(t), "tools/list")).toBe(1);
    expect(count(await server.methods(t), "prompts/list")).toBe(1);
    expect(count(await server.methods(t), "resources/list")).toBe(1);
    expect(host.tools().map((tool) => tool.name)).toEqual(["echo", "grow"]);

    clock.advance(2_000);
    expect(await host.reconnectServer("cached")).toBe("ready");
    expect(count(await server.methods(t), "tools/list")).toBe(2);
    expect(count(await server.methods(t), "prompts/list")).toBe(2);
  });

  it("are read at every connect when the ttl is 0 (today's behaviour)", async () => {
    const t = tag();
    const kept = new Map<string, KeptList>();
    const { host } = testHost({ eras: memoryOf(kept) });
    await host.connect({ servers: [httpServer("stale", server.url(t, 0, "public"))] });
    expect(await host.reconnectServer("stale")).toBe("ready");
    expect(count(await server.methods(t), "tools/list")).toBe(2);
    expect(kept.size).toBe(0);
  });

  it("are taken from another host's kept lists while fresh: a new host connects without tools/list", async () => {
    const t = tag();
    const kept = new Map<string, KeptList>();
    const first = testHost({ eras: memoryOf(kept) });
    await first.host.connect({ servers: [httpServer("shared", server.url(t, 60_000, "public"))] });
    expect(kept.get("shared/tools")).toMatchObject({ scope: "public", expiresAt: first.clock.now() + 60_000 });
    expect(count(await server.methods(t), "tools/list")).toBe(1);

    const second = testHost({ eras: memoryOf(kept) });
    await second.host.connect({ servers: [httpServer("shared", server.url(t, 60_000, "public"))] });
    expect(second.host.tools().map((tool) => tool.name)).toEqual(["echo", "grow"]);
    expect(second.host.connectionFor("shared")?.prompts.map((p) => p.name)).toEqual(["greet"]);
    expect(count(await server.methods(t), "tools/list")).toBe(1);
    // The tool is called as a listed one would be.
    const result = await second.host.callTool("shared.echo", { text: "kept" });
    expect(JSON.stringify(result.content)).toContain("kept");

    // Past the ttl, a third host reads the list again.
    const third = testHost({ eras: memoryOf(kept) });
    third.clock.advance(61_000);
    await third.host.connect({ servers: [httpServer("shared", server.url(t, 60_000, "public"))] });
    expect(count(await server.methods(t), "tools/list")).toBe(2);
  });

  it("serves a resource read from the cache for its ttl, and reads again after it or when the ttl is 0", async () => {
    const t = tag();
    const { host, clock } = testHost();
    await host.connect({ servers: [httpServer("notes", server.url(t, 10_000, "private"))] });
    const text = async () => JSON.stringify((await host.readResource("note://counter", { server: "notes" })).contents);
    expect(await text()).toContain("read 1");
    clock.advance(9_000);
    expect(await text()).toContain("read 1");
    clock.advance(2_000);
    expect(await text()).toContain("read 2");
    expect(count(await server.methods(t), "resources/read")).toBe(2);

    const z = tag();
    const { host: zero } = testHost();
    await zero.connect({ servers: [httpServer("live", server.url(z, 0, "private"))] });
    const live = async () => JSON.stringify((await zero.readResource("note://counter", { server: "live" })).contents);
    expect(await live()).toContain("read 1");
    // 0: immediately stale, where the host's own policy would have kept it five minutes.
    expect(await live()).toContain("read 2");
  });
});

describe("a change notification within the ttl", () => {
  it("reads the list at once, and the list kept for the next connect is the new one", async () => {
    const t = tag();
    const kept = new Map<string, KeptList>();
    const first = testHost({ eras: memoryOf(kept) });
    await first.host.connect({ servers: [httpServer("growing", server.url(t, 60_000, "private"))] });
    expect(first.host.servers()[0]).toMatchObject({ protocol: "2026-07-28" });
    const changed = new Promise<void>((resolve) => first.host.onChange((_server, kind) => kind === "prompts" && resolve()));
    await first.host.callTool("growing.grow", { name: "extra" });
    await changed;
    expect(first.host.tools().map((tool) => tool.name)).toContain("extra");
    expect(count(await server.methods(t), "tools/list")).toBe(2);
    expect(count(await server.methods(t), "prompts/list")).toBe(2);

    const second = testHost({ eras: memoryOf(kept) });
    await second.host.connect({ servers: [httpServer("growing", server.url(t, 60_000, "private"))] });
    expect(second.host.tools().map((tool) => tool.name)).toContain("extra");
    expect(second.host.connectionFor("growing")?.prompts.map((p) => p.name)).toContain("extra");
    expect(count(await server.methods(t), "tools/list")).toBe(2);
  });
});

describe("a session's kept lists (SessionLists)", () => {
  it("are dropped for a server signed in to again: its reconnect reads the lists within their ttl", async () => {
    const t = tag();
    const lists = new SessionLists(() => undefined);
    const { host, clock } = testHost({
      eras: { remembered: () => undefined, freshList: (...a) => lists.freshList(...a), listed: (...a) => lists.listed(...a) },
    });
    await host.connect({ servers: [httpServer("signed", server.url(t, 60_000, "private"))] });
    expect(await host.reconnectServer("signed")).toBe("ready");
    expect(count(await server.methods(t), "tools/list")).toBe(1);
    expect(lists.of("signed", clock.now())?.tools?.scope).toBe("private");

    lists.forget("signed");
    expect(lists.of("signed", clock.now())).toBeUndefined();
    expect(await host.reconnectServer("signed")).toBe("ready");
    expect(count(await server.methods(t), "tools/list")).toBe(2);
  });
});
