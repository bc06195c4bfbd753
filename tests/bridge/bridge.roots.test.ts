// Roots written in mcp.json for a stdio server: the bridge itself answers the child's
// roots/list with them, whoever is attached, and tells the child when a reload changed
// them. server-filesystem replaces the folders on its command line with the roots it
// is given, so what it lets a client read shows which roots it got.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { filesystemBin } from "../fixtures/servers";

const ROOTS_TAKEN = /Updated allowed directories from MCP roots/;

let bridge: RunningBridge | undefined;
afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
});

/** Resolves once the bridge's stderr has `count` lines matching `pattern` (counting those already written). */
function logLines(running: RunningBridge, pattern: RegExp, count: number): Promise<void> {
  const seen = () =>
    running
      .stderr()
      .split("\n")
      .filter((line) => pattern.test(line)).length;
  return new Promise((resolve) => {
    const check = () => {
      if (seen() < count) return;
      running.process.stderr?.off("data", check);
      resolve();
    };
    running.process.stderr?.on("data", check);
    check();
  });
}

function folders() {
  const base = mkdtempSync(join(tmpdir(), "bridge-roots-"));
  const outside = join(base, "outside");
  const inside = join(base, "inside");
  mkdirSync(outside);
  mkdirSync(inside);
  writeFileSync(join(outside, "a.txt"), "from the command line's folder");
  writeFileSync(join(inside, "b.txt"), "from the root");
  return { outside, inside };
}

async function read(client: Client, path: string): Promise<string> {
  const result = await client.callTool({ name: "read_text_file", arguments: { path } });
  const text = (result.content as { text: string }[])[0]?.text ?? "";
  return result.isError ? `error: ${text}` : text;
}

describe("roots from mcp.json", () => {
  it("serves a stdio server its configured roots: a file outside them is refused, one inside is read", async () => {
    const { outside, inside } = folders();
    bridge = await startBridge({
      fs: { command: process.execPath, args: [filesystemBin, outside], roots: [{ uri: pathToFileURL(inside).href, name: "inside" }] },
    });
    await logLines(bridge, ROOTS_TAKEN, 1);
    // A client that declares no roots of its own: the configured ones still apply.
    const { client } = await connectClient(bridge, "fs");
    expect(await read(client, join(inside, "b.txt"))).toBe("from the root");
    expect(await read(client, join(outside, "a.txt"))).toMatch(/^error: Access denied - path outside allowed directories/);
    await client.close();
  });

  it("tells the running server when a reload changed its roots, without restarting it", async () => {
    const { outside, inside } = folders();
    const entry = (root: string) => ({ command: process.execPath, args: [filesystemBin, outside], roots: [{ uri: pathToFileURL(root).href }] });
    bridge = await startBridge({ fs: entry(inside) });
    await logLines(bridge, ROOTS_TAKEN, 1);
    const pid = (await bridge.health()).servers.fs?.pid;
    const { client } = await connectClient(bridge, "fs");
    expect(await read(client, join(outside, "a.txt"))).toMatch(/^error: Access denied/);

    writeFileSync(bridge.configPath, JSON.stringify({ servers: { fs: entry(outside) } }));
    await bridge.waitForLog(/"msg":"mcp.json reloaded".*"changed":\[\].*"roots":\["fs"\]/);
    // The child asked for the roots again after the notification.
    await logLines(bridge, ROOTS_TAKEN, 2);
    expect((await bridge.health()).servers.fs?.pid).toBe(pid);
    expect(await read(client, join(outside, "a.txt"))).toBe("from the command line's folder");
    expect(await read(client, join(inside, "b.txt"))).toMatch(/^error: Access denied/);
    await client.close();
  });

  it("restarts a server that gets roots for the first time (it was started without the capability)", async () => {
    const { outside, inside } = folders();
    bridge = await startBridge({ fs: { command: process.execPath, args: [filesystemBin, outside] } });
    const pid = (await bridge.health()).servers.fs?.pid;
    writeFileSync(
      bridge.configPath,
      JSON.stringify({ servers: { fs: { command: process.execPath, args: [filesystemBin, outside], roots: [{ uri: pathToFileURL(inside).href }] } } }),
    );
    await bridge.waitForLog(/"msg":"mcp.json reloaded".*"changed":\["fs"\].*"roots":\[\]/);
    await logLines(bridge, ROOTS_TAKEN, 1);
    expect((await bridge.health()).servers.fs?.pid).not.toBe(pid);
    const { client } = await connectClient(bridge, "fs");
    expect(await read(client, join(inside, "b.txt"))).toBe("from the root");
    await client.close();
  });
});
