// What the idle bridge holds in memory: the bundle it runs loads no zod, no jsonc-parser
// and no MCP SDK module (their schemas cost about 18 MB; the mcp.json parser runs in its own
// short-lived process), so it idles a few MB above a bare Node HTTP server that runs a child.
// bench:bridge prints the absolute figure; this compares against a bare server on the same
// machine and Node version, so it holds on any of them.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { childrenOf, startBridge, type RunningBridge } from "../fixtures/bridge";
import { everythingBin, repoRoot } from "../fixtures/servers";
import { expectWithin } from "../reliability/record";

const dist = join(repoRoot, "local-bridge", "dist");
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;

let bridge: RunningBridge | undefined;
afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
});

// A bare HTTP server on 127.0.0.1 with one child process: the floor any such bridge stands on.
const BARE = `
const { createServer } = require("node:http");
const { spawn } = require("node:child_process");
const { randomUUID } = require("node:crypto");
const child = spawn(process.execPath, ["-e", "process.stdin.resume()"], { stdio: ["pipe", "pipe", "pipe"] });
const server = createServer((req, res) => res.end(JSON.stringify({ ok: randomUUID() })));
server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port));
process.on("SIGTERM", () => { child.kill(); server.close(); });
`;

describe("bridge memory", () => {
  it("runs a bundle that imports only node: builtins at start (the legacy SSE transport is loaded on first use)", () => {
    const code = readFileSync(join(dist, "cli.mjs"), "utf8");
    const statics = [...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm)].map((m) => m[1] ?? m[2]);
    expect(statics.length).toBeGreaterThan(0);
    expect(statics.filter((s) => !s?.startsWith("node:"))).toEqual([]);
    expect([...code.matchAll(/import\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]).sort()).toEqual(["./connect.mjs", "@modelcontextprotocol/sdk/server/sse.js"]);
    // `connect` mode (its WebSocket client, zod for its frames) is a bundle of its own.
    expect(readFileSync(join(dist, "connect.mjs"), "utf8")).toMatch(/from "ws"/);
    // The parser is in its own bundle, run as its own process.
    expect(readFileSync(join(dist, "config-loader.mjs"), "utf8")).toMatch(/from "zod"/);
  });

  // Memory is a figure (npm run bench:bridge prints it): the limit is checked only under
  // `npm run reliability`; `npm test` checks that the idle bridge runs no extra process.
  it("idles as one process beside its child, near a bare Node HTTP server that runs a child", async () => {
    const bare = spawn(process.execPath, ["-e", BARE], { stdio: ["ignore", "pipe", "inherit"] });
    const bareExit = new Promise((resolve) => bare.once("exit", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        bare.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          const match = /listening on (\S+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        bare.once("exit", (code) => reject(new Error(`bare server exited ${code}`)));
      });
      await (await fetch(url)).text();
      const floor = rssMb(bare.pid ?? 0);

      bridge = await startBridge({ everything: { command: process.execPath, args: [everythingBin, "stdio"] } }, ["--no-watch"]);
      expect(childrenOf(bridge.pid)).toHaveLength(1); // the config parser's process is gone
      expect((await bridge.health()).ok).toBe(true);
      const idle = rssMb(bridge.pid);
      // zod and the SDK's schemas alone would add about 18 MB (on Node 20; other Node lines differ).
      console.log(`bridge idle RSS ${idle.toFixed(1)} MB, bare server ${floor.toFixed(1)} MB`);
      expectWithin(idle - floor, 8, "bridge idle RSS above a bare Node HTTP server (MB)");
    } finally {
      bare.kill("SIGTERM");
      await bareExit;
    }
  });
});
