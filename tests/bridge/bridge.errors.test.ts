// The bridge's own JSON-RPC errors for a stdio server that is down (src/shared/rpc.ts):
// codes outside the range the SDK uses, structured `data`, and the host (src/mcp/call.ts)
// telling them apart by code and data rather than by message text. Real bridge, real
// probe server, the SDK's real client (1.x, as outside clients and the bridge use it), the
// host as the Worker runs it (on the 2.x client, whose errors the unit checks below build).
import { ProtocolError as RemoteError, ProtocolErrorCode, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE_ERROR, readBridgeError } from "@edgehost/shared/rpc";
import { isTransient, translateError } from "../../src/mcp/call";
import type { ServerConnection } from "../../src/mcp/connection";
import { CancelledError, ServerUnavailableError, ProtocolError, ToolTimeoutError } from "../../src/mcp/errors";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { bridgedHost, serverPid } from "../fixtures/host";
import { ProbeLog } from "../fixtures/probe-log";
import { probeServerBin, stdioServer } from "../fixtures/servers";

let bridge: RunningBridge | undefined;
afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
});

const probe = (log: ProbeLog) => ({ command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: log.path } });

/** Starts a slow call, waits until the child runs it, SIGKILLs the child; resolves with the call's rejection. */
async function killMidCall(call: () => Promise<unknown>, log: ProbeLog, pid: number): Promise<unknown> {
  const pending = call().then(
    () => undefined,
    (error: unknown) => error,
  );
  await log.waitFor((e) => e.event === "call" && e.tool === "slow" && e.pid === pid);
  process.kill(pid, "SIGKILL");
  return pending;
}

describe("bridge errors", () => {
  it("uses codes neither SDK does: none of ErrorCode's (1.x) or ProtocolErrorCode's (2.x) values, none in the JSON-RPC reserved range", () => {
    const sdk = [...Object.values(ErrorCode), ...Object.values(ProtocolErrorCode)].filter((v): v is number => typeof v === "number");
    for (const code of Object.values(BRIDGE_ERROR)) {
      expect(sdk).not.toContain(code);
      expect(code < -32768 || code > -32000).toBe(true);
    }
  });

  it("answers a call in flight when its server crashes with server_crashed, then with server_unavailable during the backoff", async () => {
    const log = new ProbeLog();
    bridge = await startBridge({ probe: probe(log) }, ["--restart-backoff", "60000"]);
    const { client } = await connectClient(bridge, "probe");
    const pid = (await bridge.health()).servers.probe?.pid ?? 0;
    const crashed = await killMidCall(() => client.callTool({ name: "slow", arguments: { ms: 60_000 } }), log, pid);
    expect(crashed).toBeInstanceOf(McpError);
    expect(crashed).toMatchObject({
      code: BRIDGE_ERROR.server_crashed,
      message: 'MCP error -31002: MCP server "probe" crashed (killed by SIGKILL) while handling this request; it restarts on the next request',
      data: {
        kind: "server_crashed",
        server: "probe",
        reason: "crashed (killed by SIGKILL) while handling this request; it restarts on the next request",
        retryAfterMs: expect.any(Number),
      },
    });
    const unavailable = await client.callTool({ name: "echo", arguments: { text: "x" } }).catch((error: unknown) => error);
    expect(unavailable).toMatchObject({
      code: BRIDGE_ERROR.server_unavailable,
      data: { kind: "server_unavailable", server: "probe", reason: expect.stringMatching(/^crashed \(killed by SIGKILL\); next restart in \d+(\.\d)? s$/) },
    });
    const { retryAfterMs } = (unavailable as McpError).data as { retryAfterMs: number };
    expect(retryAfterMs).toBeGreaterThan(50_000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    await client.close();
  });

  it("reaches the host as ServerUnavailableError (by code and data), leaving the connection up for the next call", async () => {
    const log = new ProbeLog();
    const made = await bridgedHost([stdioServer("probe", [probeServerBin], { env: { PROBE_LOG: log.path } })]);
    await made.host.connect(made.config);
    const pid = await serverPid(made.bridge, "probe");
    const error = await killMidCall(() => made.host.callTool("probe.slow", { ms: 60_000 }), log, pid);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect(error).toMatchObject({
      code: "server_unavailable",
      server: "probe",
      message: 'MCP server "probe" is unavailable: crashed (killed by SIGKILL) while handling this request; it restarts on the next request',
    });
    // The bridge is fine: the host keeps its session, and the bridge restarts the server (backoff 0 here).
    expect(made.host.servers().find((s) => s.name === "probe")?.state).toBe("ready");
    expect((await made.host.callTool("probe.echo", { text: "back" })).content).toEqual([{ type: "text", text: "back" }]);
  });

  it("does not read message text: a server's own -32000 that says 'crashed' stays a protocol error; transient only for a restartable crash", () => {
    const marked: string[] = [];
    const connection = { name: "probe", markUnavailable: (reason: string) => void marked.push(reason), retryAfterMs: () => 0 } as unknown as ServerConnection;
    const lookalike = new RemoteError(-32000, 'MCP server "probe" crashed (killed by SIGKILL) while handling this request');
    expect(translateError(lookalike, connection, "slow", 1_000, undefined)).toBeInstanceOf(ProtocolError);
    const data = {
      kind: "server_crashed",
      server: "probe",
      reason: "crashed (exit code 1) while handling this request; it restarts on the next request",
      retryAfterMs: 1_000,
    };
    const real = new RemoteError(BRIDGE_ERROR.server_crashed, "any words at all", data);
    expect(translateError(real, connection, "slow", 1_000, undefined)).toMatchObject({ code: "server_unavailable", reason: data.reason, retryAfterMs: 1_000 });
    expect(marked).toEqual([]);
    // The code and the data's kind must agree, or it is not a bridge error.
    expect(readBridgeError(BRIDGE_ERROR.server_unavailable, data)).toBeUndefined();
    expect(readBridgeError(BRIDGE_ERROR.server_crashed, { ...data, server: 7 })).toBeUndefined();
    expect(isTransient(real)).toBe(true);
    expect(
      isTransient(new RemoteError(BRIDGE_ERROR.server_unavailable, "x", { kind: "server_unavailable", server: "probe", reason: "r", retryAfterMs: 30_000 })),
    ).toBe(false);
    expect(isTransient(new RemoteError(BRIDGE_ERROR.server_stopped, "x", { kind: "server_stopped", server: "probe", reason: "was stopped" }))).toBe(false);
  });

  it("tells the server's errors from the SDK's own: a -32001 the server sent is a protocol error; a timeout is the SDK's, and only one carrying data.timeout", () => {
    const marked: string[] = [];
    const connection = { name: "probe", markUnavailable: (reason: string) => void marked.push(reason), retryAfterMs: () => 0 } as unknown as ServerConnection;
    // The codes the 1.x SDK used for its own timeout and closed connection, sent by a server: its errors, nothing more.
    for (const [code, message] of [
      [-32001, "Request timed out"],
      [-32000, "Connection closed"],
    ] as const) {
      const sent = new RemoteError(code, message, { timeout: 1_000 });
      expect(translateError(sent, connection, "slow", 1_000, undefined)).toMatchObject({
        code: "protocol",
        server: "probe",
        rpcCode: code,
        message: `probe: ${message}`,
      });
      expect(isTransient(sent)).toBe(false);
    }
    expect(marked).toEqual([]);
    // The SDK's timeout (what Protocol.request rejects with when `timeout` passes).
    const timeout = new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: 1_000 });
    expect(translateError(timeout, connection, "slow", 1_000, undefined)).toBeInstanceOf(ToolTimeoutError);
    expect(isTransient(timeout)).toBe(true);
    expect(marked).toEqual(["slow timed out after 1000 ms"]);
    // The SDK rejects an aborted request with the same code and no data.timeout: a stop, not a timeout.
    const aborted = new SdkError(SdkErrorCode.RequestTimeout, "stop it");
    expect(translateError(aborted, connection, "slow", 1_000, undefined)).toBeInstanceOf(CancelledError);
    expect(isTransient(aborted)).toBe(false);
    const closed = new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed");
    expect(translateError(closed, connection, "slow", 1_000, undefined)).toMatchObject({
      code: "server_unavailable",
      reason: "the connection closed during the request",
    });
    expect(isTransient(closed)).toBe(true);
    expect(marked).toEqual(["slow timed out after 1000 ms", "connection closed"]);
  });
});
