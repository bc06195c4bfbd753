import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAlive } from "../fixtures/host";
import { ProbeLog } from "../fixtures/probe-log";
import { childrenOf, connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { everythingBin, probeServerBin } from "../fixtures/servers";

let bridge: RunningBridge | undefined;
afterEach(async () => {
  await bridge?.stop("SIGKILL");
  bridge = undefined;
});

const probe = (log: ProbeLog, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [probeServerBin],
  env: { PROBE_LOG: log.path },
  ...extra,
});
const everything = { command: process.execPath, args: [everythingBin, "stdio"] };

describe("bridge lifecycle", () => {
  it("fails in-flight calls at once when a child is killed, and restarts it on the next request", async () => {
    const log = new ProbeLog();
    bridge = await startBridge({ probe: probe(log) }, ["--restart-backoff", "0"]);
    const { client } = await connectClient(bridge, "probe");
    const pid = (await bridge.health()).servers.probe?.pid ?? 0;
    const call = client.callTool({ name: "slow", arguments: { ms: 60_000 } });
    await log.waitFor((e) => e.event === "call" && e.tool === "slow");
    process.kill(pid, "SIGKILL");
    await expect(call).rejects.toThrow(/MCP server "probe" crashed \(killed by SIGKILL\) while handling this request; it restarts on the next request/);
    const down = await bridge.health();
    expect(down.servers.probe).toMatchObject({ state: "unavailable", pid: null });
    expect(down.servers.probe?.lastError).toContain("killed by SIGKILL");

    // The same session goes on: the next request starts a fresh child.
    expect((await client.callTool({ name: "echo", arguments: { text: "again" } })).content).toEqual([{ type: "text", text: "again" }]);
    const up = await bridge.health();
    expect(up.servers.probe).toMatchObject({ state: "ready", restarts: 1 });
    expect(up.servers.probe?.pid).not.toBe(pid);
    expect(childrenOf(bridge.pid)).toEqual([up.servers.probe?.pid]);
    await client.close();
  });

  it("refuses requests during the restart backoff instead of restarting in a loop", async () => {
    const log = new ProbeLog();
    bridge = await startBridge({ probe: probe(log) }, ["--restart-backoff", "60000"]);
    const { client } = await connectClient(bridge, "probe");
    await expect(client.callTool({ name: "crash", arguments: {} })).rejects.toThrow(/crashed \(exit code 3\)/);
    await expect(client.callTool({ name: "echo", arguments: { text: "x" } })).rejects.toThrow(/unavailable .*next restart in \d+(\.\d)? s/);
    expect(log.events().filter((e) => e.event === "start")).toHaveLength(1);
    await client.close();
  });

  it("reloads mcp.json: starts added servers, restarts changed ones, stops removed ones, leaves the rest", async () => {
    const log = new ProbeLog();
    bridge = await startBridge({ keep: probe(log), change: probe(log), remove: probe(log) });
    const before = (await bridge.health()).servers;
    writeFileSync(
      bridge.configPath,
      JSON.stringify({ servers: { keep: probe(log), change: probe(log, { env: { PROBE_LOG: log.path, CHANGED: "1" } }), add: everything } }),
    );
    await bridge.waitForLog(/"msg":"mcp.json reloaded".*"added":\["add"\],"changed":\["change"\],"removed":\["remove"\]/);
    const after = (await bridge.health()).servers;
    expect(Object.keys(after).sort()).toEqual(["add", "change", "keep"]);
    expect(after.keep?.pid).toBe(before.keep?.pid);
    expect(after.change?.pid).not.toBe(before.change?.pid);
    expect(isAlive(before.remove?.pid ?? 0)).toBe(false);
    expect(childrenOf(bridge.pid).sort()).toEqual([after.keep?.pid, after.change?.pid, after.add?.pid].sort());
  });

  it("keeps serving when a reload brings an invalid mcp.json, naming the problem", async () => {
    const log = new ProbeLog();
    bridge = await startBridge({ probe: probe(log) });
    writeFileSync(bridge.configPath, '{ "servers": { "probe": { "command": 42 } } }');
    const line = await bridge.waitForLog(/mcp.json not reloaded/);
    expect(line).toContain("mcp.json:1:38 servers.probe.command: expected string");
    expect((await bridge.health()).servers.probe?.state).toBe("ready");
  });

  it("shuts down on SIGTERM with exit code 0 and no child left", async () => {
    bridge = await startBridge({ a: everything, b: everything });
    const children = childrenOf(bridge.pid);
    expect(children).toHaveLength(2);
    expect(await bridge.stop("SIGTERM")).toBe(0);
    expect(children.filter(isAlive)).toEqual([]);
    expect(bridge.stderr()).toContain('"msg":"stopped","component":"bridge","clean":true');
  });

  it("kills a child that ignores SIGTERM after the shutdown timeout and says so in the exit code", async () => {
    const stubborn = join(new ProbeLog().path, "..", "stubborn.mjs");
    writeFileSync(stubborn, `process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); await import(${JSON.stringify(probeServerBin)});\n`);
    bridge = await startBridge({ stubborn: { command: process.execPath, args: [stubborn] } }, ["--shutdown-timeout", "0.5"]);
    const [child] = childrenOf(bridge.pid);
    expect(await bridge.stop("SIGINT")).toBe(3);
    expect(isAlive(child ?? 0)).toBe(false);
    expect(bridge.stderr()).toContain('"how":"SIGKILL"');
  });

  it("starts nothing when one server fails to start, naming it with its last stderr lines", async () => {
    const log = new ProbeLog();
    const failing = startBridge({
      good: probe(log),
      bad: { command: process.execPath, args: ["-e", "console.error('BAD_KEY is not set'); process.exit(4)"] },
    });
    await expect(failing).rejects.toThrow(
      /could not start: MCP servers failed to start: bad \(exited during startup \(exit code 4\); last stderr: BAD_KEY is not set\)/,
    );
    const started = log
      .events()
      .filter((e) => e.event === "start")
      .map((e) => e.pid);
    expect(started.filter(isAlive)).toEqual([]);
  });

  it("starts servers in dependency order", async () => {
    const log = new ProbeLog();
    bridge = await startBridge({ second: probe(log, { dependencies: ["first"] }), first: probe(log) });
    const health = (await bridge.health()).servers;
    expect(
      log
        .events()
        .filter((e) => e.event === "start")
        .map((e) => e.pid),
    ).toEqual([health.first?.pid, health.second?.pid]);
  });

  it("applies Linux resource limits from mcp.json to the child", async () => {
    const log = new ProbeLog();
    bridge = await startBridge({ limited: probe(log, { limits: { memoryMb: 2048, cpuSeconds: 120 } }) });
    const pid = (await bridge.health()).servers.limited?.pid ?? 0;
    const limits = readFileSync(`/proc/${pid}/limits`, "utf8");
    expect(limits).toMatch(/Max address space\s+2147483648\s+2147483648/);
    expect(limits).toMatch(/Max cpu time\s+120\s+120/);
    expect(childrenOf(bridge.pid)).toEqual([pid]);
  });

  it("expires idle sessions", async () => {
    const log = new ProbeLog();
    bridge = await startBridge({ probe: probe(log) }, ["--idle-timeout", "0.2"]);
    const { client, transport } = await connectClient(bridge, "probe");
    const line = await bridge.waitForLog(/"msg":"session expired"/);
    expect(line).toContain(transport.sessionId ?? "none");
    await expect(client.callTool({ name: "echo", arguments: { text: "late" } })).rejects.toThrow(/session not found/);
    await client.close();
  });
});
