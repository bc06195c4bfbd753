// McpHost's resource and prompt cache, and list_changed refreshes, on the path the
// Worker takes: the probe server behind the real bridge, over Streamable HTTP.
import { describe, expect, it } from "vitest";
import { ServerUnavailableError } from "../../src/mcp/errors";
import type { McpHostOptions } from "../../src/mcp/host";
import { bridgedHost, heldAt2025, nextChange, untilState } from "../fixtures/host";
import { ProbeLog } from "../fixtures/probe-log";
import { probeServerBin, stdioServer } from "../fixtures/servers";

async function probeHost(options: Partial<McpHostOptions> = {}) {
  const log = new ProbeLog();
  const made = await bridgedHost([stdioServer("probe", [probeServerBin], { env: { PROBE_LOG: log.path } })], {
    cache: { ttlMs: 60_000, maxEntries: 3 },
    ...options,
  });
  await made.host.connect(made.config);
  return { ...made, log };
}

const reads = (log: ProbeLog, uri: string) => log.events().filter((e) => e.event === "read" && e.uri === uri).length;

describe("McpHost cache", () => {
  // The host's own ttl is for reads that carry none (2025): the bridge's 2026 reads say ttlMs 0, not to be kept (host.list-ttl covers those).
  it("serves repeated resource reads from the cache until the TTL passes", async () => {
    const { host, clock, log } = await probeHost(heldAt2025);
    const first = await host.readResource("probe://counter");
    expect(first.contents[0]).toMatchObject({ text: "0" });
    await host.readResource("probe://counter");
    expect(reads(log, "probe://counter")).toBe(1);
    expect(host.metrics().cache).toMatchObject({ hits: 1, misses: 1 });
    clock.advance(60_000);
    await host.readResource("probe://counter");
    expect(reads(log, "probe://counter")).toBe(2);
  });

  it("bypasses the cache on request", async () => {
    const { host, log } = await probeHost();
    await host.readResource("probe://counter");
    await host.readResource("probe://counter", { bypassCache: true });
    expect(reads(log, "probe://counter")).toBe(2);
  });

  it("routes template URIs to the server whose template matches, evicting the least recently used", async () => {
    const { host, log } = await probeHost(heldAt2025);
    for (const id of ["1", "2", "3"]) await host.readResource(`probe://items/${id}`);
    await host.readResource("probe://items/1"); // refreshes 1: 2 is now the oldest
    await host.readResource("probe://counter"); // evicts 2
    await host.readResource("probe://items/1");
    await host.readResource("probe://items/2");
    expect(reads(log, "probe://items/1")).toBe(1);
    expect(reads(log, "probe://items/2")).toBe(2);
    expect(host.metrics().cache.evictions).toBeGreaterThanOrEqual(1);
    await expect(host.readResource("nowhere://x")).rejects.toThrow('No resource "nowhere://x"');
  });

  it("caches prompts by name and arguments", async () => {
    const { host, log } = await probeHost();
    const a = await host.getPrompt("probe.counted", { topic: "a" });
    expect(a.messages[0]?.content).toMatchObject({ text: "read 1 about a" });
    expect((await host.getPrompt("probe.counted", { topic: "a" })).messages[0]?.content).toMatchObject({ text: "read 1 about a" });
    expect((await host.getPrompt("probe.counted", { topic: "b" })).messages[0]?.content).toMatchObject({ text: "read 2 about b" });
    expect(log.events().filter((e) => e.event === "prompt")).toHaveLength(2);
    await expect(host.getPrompt("probe.nope")).rejects.toThrow('No prompt "probe.nope"');
  });

  it("serves an expired copy while the server is unreachable, and an error when it has none", async () => {
    const { host, clock, stopBridge } = await probeHost({ cache: { ttlMs: 60_000, maxEntries: 10 }, retry: { initialMs: 120_000, maxMs: 120_000, tries: 3 } });
    await host.readResource("probe://counter");
    await stopBridge();
    // A call finds the bridge gone (calls are never retried): the server is unavailable for the 120 s backoff.
    await expect(host.callTool("probe.echo", { text: "anyone?" })).rejects.toBeInstanceOf(ServerUnavailableError);
    await untilState(host, "probe", "unavailable");
    clock.advance(60_000);
    expect((await host.readResource("probe://counter")).contents[0]).toMatchObject({ text: "0" });
    await expect(host.readResource("probe://items/9")).rejects.toThrow(/"probe" is unavailable/);
  });
});

describe("McpHost list_changed", () => {
  it("refreshes tools when the server announces tools/list_changed", async () => {
    const { host } = await probeHost();
    const changed = nextChange(host, "probe", "tools");
    await host.callTool("probe.add_tool", { name: "fresh" });
    await changed;
    expect(host.tools().map((t) => t.qualifiedName)).toContain("probe.fresh");
    expect(await host.callTool("probe.fresh", {})).toMatchObject({ content: [{ text: "added tool fresh" }] });
  });
});
