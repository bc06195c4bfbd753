// Log lines for MCP 2026-07-28 requests through the real bridge: the v2 client pinned to the
// revision asks for logs per request (`io.modelcontextprotocol/logLevel` in `_meta`), and the
// probe server's `log` tool writes "probe says hi" at info with `notifications/message`. The
// line rides on that request's response stream when asked for at or below info, never
// without the key, and never on another user's request in flight on the same shared child.
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "../fixtures/bridge";
import { connectModern, modernClient } from "../fixtures/bridge-modern";
import { ProbeLog } from "../fixtures/probe-log";
import { probeServerBin } from "../fixtures/servers";

const LEVEL = "io.modelcontextprotocol/logLevel";
let bridge: RunningBridge;
const probe = new ProbeLog();
const clients: Client[] = [];

beforeAll(async () => {
  bridge = await startBridge({ probe: { command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: probe.path } } }, ["--no-watch"]);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await bridge?.stop();
});

/** A pinned 2026 client of `user` and the log lines it was sent. */
async function client(user: string): Promise<{ client: Client; lines: unknown[] }> {
  const c = await connectModern(bridge, "probe", modernClient(), user);
  clients.push(c);
  const lines: unknown[] = [];
  c.setNotificationHandler("notifications/message", (n) => void lines.push(n.params));
  return { client: c, lines };
}

const logCall = (level?: string) => ({ name: "log", arguments: {}, ...(level === undefined ? {} : { _meta: { [LEVEL]: level } }) });

describe("bridge, log lines of a 2026 request", () => {
  it("sends the child's line on the request's stream when asked at or below its level, and none otherwise", async () => {
    const { client: ada, lines } = await client("ada");
    expect(ada.getProtocolEra()).toBe("modern");
    expect(JSON.stringify((await ada.callTool(logCall("info"))).content)).toContain("logged");
    expect(lines).toEqual([{ level: "info", logger: "probe", data: "probe says hi" }]);
    await ada.callTool(logCall("debug"));
    expect(lines).toHaveLength(2);
    // No key: no logs; a level above the line's: none either.
    await ada.callTool(logCall());
    await ada.callTool(logCall("warning"));
    expect(lines).toHaveLength(2);
  });

  it("never puts one user's line on another user's request in flight on the shared child", async () => {
    const { client: ada } = await client("ada");
    const { client: bob, lines: bobLines } = await client("bob");
    // Bob asks for every log and waits at the child while Ada's call logs.
    const slow = bob.callTool({ name: "slow", arguments: { ms: 6000 }, _meta: { [LEVEL]: "debug" } });
    let bobDone = false;
    void slow.then(() => {
      bobDone = true;
    });
    await probe.waitFor((e) => e.event === "call" && e.tool === "slow");
    await ada.callTool(logCall("info"));
    // Bob's call was still running at the child when Ada's line came, so it could have had it.
    expect(bobDone).toBe(false);
    expect(JSON.stringify((await slow).content)).toContain("done");
    expect(bobLines).toEqual([]);
  });
});
