// A remembered era lets a connect skip the `server/discover` probe (the SDK's
// `connect({ prior })`), and a remembered era that went stale (the server changed what it
// speaks between connects) costs one failed try, then the era is probed again (issue 34).
// The server is the SDK's v2 server, switched between 2026-only and 2025-only while it runs;
// the host's fetch counts the methods it sends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EraVerdict } from "../../src/mcp/protocol-era";
import { LEGACY_VERDICT_MS } from "../../src/mcp/protocol-era";
import { workerTransports } from "../../src/mcp/transports";
import { testHost } from "../fixtures/host";
import { httpServer } from "../fixtures/servers";
import { startV2Server, type RunningV2Server } from "../fixtures/v2-servers";

let server: RunningV2Server;
beforeAll(async () => {
  server = await startV2Server("modern");
});
afterAll(async () => {
  await server?.stop();
});

/** A host remembering eras in `memory`, and the JSON-RPC methods it POSTed. */
async function connectWith(memory: Map<string, EraVerdict>) {
  const methods: string[] = [];
  const counting: typeof fetch = async (input, init) => {
    if (typeof init?.body === "string") methods.push((JSON.parse(init.body) as { method?: string }).method ?? "(response)");
    return fetch(input, init);
  };
  const { host } = testHost({
    transports: workerTransports({ fetch: counting }),
    eras: { remembered: (name) => memory.get(name), found: (name, verdict) => void memory.set(name, verdict) },
  });
  const report = await host.connect({ servers: [httpServer("v2", server.url)] });
  return { host, report, methods };
}

describe("the era a server was found to speak, remembered", () => {
  it("skips the probe with a remembered verdict, and probes again when the server changed era either way", async () => {
    await server.setEra("modern");
    const memory = new Map<string, EraVerdict>();
    const first = await connectWith(memory);
    expect(first.report.ready).toEqual(["v2"]);
    expect(first.methods[0]).toBe("server/discover");
    expect(memory.get("v2")).toMatchObject({ era: "modern", protocolVersion: "2026-07-28", discover: { supportedVersions: ["2026-07-28"] } });

    // Remembered and still true: no probe, no initialize; the verdict is kept as it was.
    const kept = memory.get("v2");
    const second = await connectWith(memory);
    expect(second.report.ready).toEqual(["v2"]);
    expect(second.methods).not.toContain("server/discover");
    expect(second.methods).not.toContain("initialize");
    expect(memory.get("v2")).toEqual(kept);

    // The server now speaks 2025 only: the remembered 2026 verdict fails, the probe finds 2025.
    await server.setEra("legacy");
    const third = await connectWith(memory);
    expect(third.report).toEqual({ ready: ["v2"], failed: [] });
    expect(third.host.servers()[0]).toMatchObject({ state: "ready", protocol: "2025-11-25" });
    expect(third.methods).toContain("server/discover");
    expect(memory.get("v2")).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25" });

    // Remembered 2025: initialize at once, no probe.
    const fourth = await connectWith(memory);
    expect(fourth.methods[0]).toBe("initialize");
    expect(fourth.methods).not.toContain("server/discover");

    // Back to 2026 only: the server refuses initialize, the host probes and speaks 2026, and its tools work.
    await server.setEra("modern");
    const fifth = await connectWith(memory);
    expect(fifth.report).toEqual({ ready: ["v2"], failed: [] });
    expect(fifth.methods.slice(0, 2)).toEqual(["initialize", "server/discover"]);
    expect(fifth.host.servers()[0]?.protocol).toBe("2026-07-28");
    expect(memory.get("v2")?.era).toBe("modern");
    expect(await fifth.host.callTool("v2.echo", { text: "back" })).toMatchObject({ content: [{ type: "text", text: "back" }] });
  });

  it("does not trust a legacy verdict older than a day: an upgraded server is found", async () => {
    await server.setEra("modern");
    const memory = new Map<string, EraVerdict>([["v2", { era: "legacy", protocolVersion: "2025-11-25", at: Date.now() - LEGACY_VERDICT_MS - 1 }]]);
    const { report, methods, host } = await connectWith(memory);
    expect(report.ready).toEqual(["v2"]);
    expect(methods[0]).toBe("server/discover");
    expect(host.servers()[0]?.protocol).toBe("2026-07-28");
  });
});
