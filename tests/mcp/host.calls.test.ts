// Tool calls through McpHost on the path the Worker takes: stdio servers behind the real
// bridge, reached over Streamable HTTP (tests/fixtures/host.ts).
import { describe, expect, it } from "vitest";
import {
  CancelledError,
  CircuitOpenError,
  ProtocolError,
  ServerUnavailableError,
  ToolArgumentsError,
  ToolNotFoundError,
  ToolTimeoutError,
} from "../../src/mcp/errors";
import type { McpHostOptions } from "../../src/mcp/host";
import { startBadMcpServer } from "../fixtures/bad-mcp-server";
import { bridgedHost, heldAt2025, isAlive, serverPid, testHost, untilState } from "../fixtures/host";
import { ProbeLog } from "../fixtures/probe-log";
import { everythingServer, httpServer, probeServerBin, stdioServer } from "../fixtures/servers";

/** probe (5 s timeout) and server-everything behind one bridge, connected. */
async function probeHost(options: Partial<McpHostOptions> = {}) {
  const log = new ProbeLog();
  const made = await bridgedHost([stdioServer("probe", [probeServerBin], { env: { PROBE_LOG: log.path }, timeoutMs: 5_000 }), everythingServer()], options);
  expect(await made.host.connect(made.config)).toEqual({ ready: ["probe", "everything"], failed: [] });
  return { ...made, log };
}

describe("McpHost tool calls", () => {
  it("routes qualified and function names to the right server", async () => {
    const { host } = await probeHost();
    // toMatchObject: a 2026-07-28 result also carries the server's identity in _meta.
    expect(await host.callTool("everything.get-sum", { a: 2, b: 3 })).toMatchObject({ content: [{ type: "text", text: "The sum of 2 and 3 is 5." }] });
    expect(await host.callTool("probe__echo", { text: "routed" })).toMatchObject({ content: [{ type: "text", text: "routed" }] });
  });

  it("ends its Streamable HTTP sessions with DELETE when it closes, so the bridge drops them at once", async () => {
    const { host, bridge } = await probeHost();
    const sessions = async () => Object.values((await bridge.health()).servers).map((s) => s.sessions);
    expect(await sessions()).toEqual([1, 1]);
    await host.close();
    expect(await sessions()).toEqual([0, 0]);
  });

  it("rejects unknown servers and tools with the tools that exist", async () => {
    const { host } = await probeHost();
    await expect(host.callTool("nope.echo", {})).rejects.toBeInstanceOf(ToolNotFoundError);
    const error = await host.callTool("probe.missing", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolNotFoundError);
    expect((error as ToolNotFoundError).available).toContain("probe.echo");
    await expect(host.callTool("no-dot-at-all", {})).rejects.toBeInstanceOf(ToolNotFoundError);
  });

  it("validates arguments before routing and lists every bad field", async () => {
    const { host, log } = await probeHost();
    const error = await host.callTool("everything.get-sum", { a: "two" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolArgumentsError);
    expect((error as ToolArgumentsError).issues).toEqual([
      { path: "b", message: "is required" },
      { path: "a", message: "expected number, got string" },
    ]);
    expect((error as ToolArgumentsError).toPublic()).toMatchObject({ code: "tool_arguments", tool: "everything.get-sum" });
    await expect(host.callTool("probe.echo", {})).rejects.toThrow("Invalid arguments for probe.echo: text: is required");
    expect(log.events().filter((e) => e.event === "call")).toEqual([]);
  });

  it("passes progress notifications to the caller", async () => {
    const { host } = await probeHost();
    const progress: string[] = [];
    const result = await host.callTool(
      "everything.trigger-long-running-operation",
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => progress.push(`${p.progress}/${p.total}`) },
    );
    // The SDK dispatches notifications a microtask later than responses, so a final
    // progress that arrives in the same chunk as the result can be dropped by it.
    expect(progress.slice(0, 2)).toEqual(["1/3", "2/3"]);
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("completed") });
  });

  it.each(["2026-07-28", "2025-11-25"] as const)(
    "cancels a call when the caller aborts, and the server sees notifications/cancelled (%s)",
    async (revision) => {
      const { host, log } = await probeHost(revision === "2025-11-25" ? heldAt2025 : {});
      expect(host.servers().find((s) => s.name === "probe")?.protocol).toBe(revision);
      const controller = new AbortController();
      const call = host.callTool("probe.slow", { ms: 30_000 }, { signal: controller.signal });
      const started = await log.waitFor((e) => e.event === "call" && e.tool === "slow");
      controller.abort("user pressed stop");
      await expect(call).rejects.toBeInstanceOf(CancelledError);
      const cancelled = await log.waitFor((e) => e.event === "cancelled");
      expect(cancelled.requestId).toBe(started.requestId);
      // On 2026 the SDK cancels by closing the request's stream, which carries no reason (the bridge gives its own).
      if (revision === "2025-11-25") expect(cancelled.reason).toContain("user pressed stop");
      // Cancelling is not a failure of the server: it stays ready.
      expect(host.servers().find((s) => s.name === "probe")?.state).toBe("ready");
      expect(await host.callTool("probe.echo", { text: "still here" })).toMatchObject({ content: [{ text: "still here" }] });
    },
  );

  it("times out a slow tool: cancels it on the server, marks the server unavailable and hides its tools", async () => {
    const { host, log } = await probeHost();
    const error = await host.callTool("probe.slow", { ms: 30_000 }, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolTimeoutError);
    expect((error as ToolTimeoutError).toPublic()).toMatchObject({ code: "tool_timeout", server: "probe", tool: "slow" });
    await log.waitFor((e) => e.event === "cancelled");
    expect(host.servers().find((s) => s.name === "probe")).toMatchObject({ state: "unavailable", toolCount: 0 });
    expect(host.tools().some((t) => t.server === "probe")).toBe(false);
    expect(host.metrics().servers.probe?.tools.slow).toMatchObject({ calls: 1, errors: 1, timeouts: 1 });
  });

  it("fails a call whose server process dies, with the bridge's reason, and the next call runs on a new process", async () => {
    const { host, bridge, log } = await probeHost();
    const pid = await serverPid(bridge, "probe");
    const call = host.callTool("probe.slow", { ms: 30_000 });
    await log.waitFor((e) => e.event === "call" && e.tool === "slow");
    process.kill(pid, "SIGKILL");
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect((error as ServerUnavailableError).toPublic()).toMatchObject({
      code: "server_unavailable",
      server: "probe",
      message: 'MCP server "probe" is unavailable: crashed (killed by SIGKILL) while handling this request; it restarts on the next request',
    });
    // The connection to the bridge is fine: the server stays usable and the bridge starts a new process.
    expect(host.servers().find((s) => s.name === "probe")?.state).toBe("ready");
    expect(await host.callTool("probe.echo", { text: "back" })).toMatchObject({ content: [{ text: "back" }] });
    expect(await serverPid(bridge, "probe")).not.toBe(pid);
    expect(isAlive(pid)).toBe(false);
    expect(log.events().filter((e) => e.event === "start")).toHaveLength(2);
  });

  it("reports a crash inside a tool while the other servers keep serving", async () => {
    const { host } = await probeHost();
    const error = await host.callTool("probe.crash", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect((error as ServerUnavailableError).message).toBe(
      'MCP server "probe" is unavailable: crashed (exit code 3) while handling this request; it restarts on the next request',
    );
    expect(await host.callTool("everything.echo", { message: "fine" })).toMatchObject({ content: [{ text: "Echo: fine" }] });
    expect(await host.callTool("probe.echo", { text: "restarted" })).toMatchObject({ content: [{ text: "restarted" }] });
  });

  it("marks a server unavailable when the bridge goes away mid-call, refuses it during the backoff, and reconnects after", async () => {
    const { host, clock, log, stopBridge, restartBridge } = await probeHost();
    // Caught from the start: it fails while the bridge is still stopping.
    const call = host.callTool("probe.slow", { ms: 30_000 }).catch((e: unknown) => e);
    await log.waitFor((e) => e.event === "call" && e.tool === "slow");
    await stopBridge();
    const error = await call;
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect((error as ServerUnavailableError).toPublic()).toMatchObject({ code: "server_unavailable", server: "probe" });
    await untilState(host, "probe", "unavailable");

    // Within the backoff: refused at once, with the wait.
    await restartBridge();
    const refused = await host.callTool("probe.echo", { text: "x" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServerUnavailableError);
    expect((refused as ServerUnavailableError).retryAfterMs).toBe(1_000);

    // After it: a later use connects again and the call goes through.
    clock.advance(1_000);
    expect(await host.callTool("probe.echo", { text: "back" })).toMatchObject({ content: [{ text: "back" }] });
    expect(host.servers().find((s) => s.name === "probe")?.state).toBe("ready");
  });

  it("makes a turn's reconnect wait for a reconnect already under way, so the server's tools are in the turn", async () => {
    const { host, clock, log, stopBridge, restartBridge } = await probeHost();
    const call = host.callTool("probe.slow", { ms: 30_000 }).catch((e: unknown) => e);
    await log.waitFor((e) => e.event === "call" && e.tool === "slow");
    await stopBridge();
    expect(await call).toBeInstanceOf(ServerUnavailableError);
    await untilState(host, "probe", "unavailable");
    await restartBridge();
    clock.advance(1_000);

    // A session's background retry (its alarm) starts the reconnect; the turn starting then waits for it.
    const background = host.reconnectServer("probe");
    await untilState(host, "probe", "connecting");
    await host.reconnect();
    expect(host.servers().find((s) => s.name === "probe")?.state).toBe("ready");
    expect(host.tools().some((t) => t.qualifiedName === "probe.echo")).toBe(true);
    expect(await background).toBe("ready");
  });

  it("doubles the reconnect backoff each time a reconnect fails, with no reconnect loop in between", async () => {
    const down = await startBadMcpServer("down");
    const { host, clock } = testHost();
    try {
      await host.connect({ servers: [httpServer("down", down.url)] });
      const retryAfter = async () => ((await host.callTool("down.x", {}).catch((e: unknown) => e)) as ServerUnavailableError).retryAfterMs;
      expect(await retryAfter()).toBe(1_000);
      clock.advance(1_000);
      expect(await retryAfter()).toBe(2_000);
      clock.advance(2_000);
      expect(await retryAfter()).toBe(4_000);
      expect(await retryAfter()).toBe(4_000);
      // One connect attempt each: it opens with the era probe (server/discover), which the 503 already fails.
      expect(down.received.filter((r) => r.method === "initialize" || r.method === "server/discover")).toHaveLength(3);
    } finally {
      await down.stop();
    }
  });

  it("opens the circuit after repeated failures and half-opens after the cool-down", async () => {
    const { host, clock } = await probeHost({ breaker: { failureThreshold: 2, cooldownMs: 10_000 } });
    await expect(host.callTool("probe.fail", {})).rejects.toBeInstanceOf(ProtocolError);
    await expect(host.callTool("probe.fail", {})).rejects.toThrow("this tool always fails");
    const open = await host.callTool("probe.fail", {}).catch((e: unknown) => e);
    expect(open).toBeInstanceOf(CircuitOpenError);
    expect((open as CircuitOpenError).retryAfterMs).toBe(10_000);
    // Other tools of the same server are unaffected.
    expect(await host.callTool("probe.echo", { text: "ok" })).toMatchObject({ content: [{ text: "ok" }] });
    clock.advance(10_000);
    await expect(host.callTool("probe.fail", {})).rejects.toBeInstanceOf(ProtocolError);
    await expect(host.callTool("probe.fail", {})).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it("validates structured output against the tool's output schema", async () => {
    const { host } = await probeHost();
    expect(await host.callTool("probe.structured", {})).toMatchObject({ structuredContent: { count: 1 } });
    await expect(host.callTool("probe.structured", { bad: true })).rejects.toThrow(/does not match its output schema: count expected number, got string/);
  });

  it("counts calls, errors and latency per server and per tool", async () => {
    const { host } = await probeHost();
    for (let i = 0; i < 5; i++) await host.callTool("probe.echo", { text: String(i) });
    await host.callTool("probe.fail", {}).catch(() => undefined);
    const probe = host.metrics().servers.probe;
    expect(probe).toMatchObject({ state: "ready", calls: 6, errors: 1, timeouts: 0 });
    expect(probe?.tools.echo).toMatchObject({ calls: 5, errors: 0 });
    expect(probe?.tools.echo?.p50Ms).toBeGreaterThan(0);
    expect(probe?.tools.echo?.p95Ms).toBeGreaterThanOrEqual(probe?.tools.echo?.p50Ms ?? 0);
    expect(host.metrics().servers.everything).toMatchObject({ calls: 0 });
  });
});
