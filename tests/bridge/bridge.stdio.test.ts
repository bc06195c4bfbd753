// The bridge's own newline framing of a child's stdout (it no longer loads the SDK's
// ReadBuffer): a large answer arriving in many chunks comes through whole, and a line
// over the 10 MiB limit costs that child a restart, reported with the bridge's
// server_crashed error, while the next request is served. Real server-filesystem.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { BRIDGE_ERROR } from "@edgehost/shared/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { filesystemBin } from "../fixtures/servers";

let bridge: RunningBridge;
let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "bridge-stdio-"));
  bridge = await startBridge({ fs: { command: process.execPath, args: [filesystemBin, root] } }, ["--restart-backoff", "0"]);
});
afterAll(async () => {
  expect(await bridge.stop()).toBe(0);
});

const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]?.text ?? "";

describe("bridge stdio framing", () => {
  it("passes a 3 MiB answer (many stdout chunks, multi-byte characters across their edges) through whole", async () => {
    const body = "ünïcödé ✓ line\n".repeat(200_000);
    writeFileSync(join(root, "big.txt"), body);
    const { client } = await connectClient(bridge, "fs");
    const result = await client.callTool({ name: "read_text_file", arguments: { path: join(root, "big.txt") } });
    expect(text(result)).toBe(body);
    await client.close();
  });

  it("restarts a child that writes a line over 10 MiB, failing that call with server_crashed, and serves the next one", async () => {
    writeFileSync(join(root, "huge.txt"), "x".repeat(11 * 1024 * 1024));
    writeFileSync(join(root, "small.txt"), "small");
    const { client } = await connectClient(bridge, "fs");
    const pid = (await bridge.health()).servers.fs?.pid;
    const error = await client.callTool({ name: "read_text_file", arguments: { path: join(root, "huge.txt") } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: BRIDGE_ERROR.server_crashed,
      data: {
        kind: "server_crashed",
        server: "fs",
        reason: expect.stringMatching(/^was restarted: it sent a message larger than 10 MiB while handling this request/),
      },
    });
    expect(text(await client.callTool({ name: "read_text_file", arguments: { path: join(root, "small.txt") } }))).toBe("small");
    const health = await bridge.health();
    expect(health.servers.fs?.pid).not.toBe(pid);
    expect(health.servers.fs?.restarts).toBe(1);
    await client.close();
  });
});
