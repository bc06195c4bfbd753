#!/usr/bin/env node
// `npm run dev`: the local bridge (stdio MCP servers from mcp.json), then
// `wrangler dev` once the bridge has written its URL and token to .dev.vars, with
// their output prefixed; one Ctrl+C stops both.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const wranglerBin = join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
const port = process.env.PORT ?? "8787";

// Offline-friendly wrangler: no metrics upload, no request.cf fetch (a 3 s stall otherwise).
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

const bridgePort = process.env.BRIDGE_PORT ?? "8808";
const bridgeBin = join(root, "local-bridge", "bin", "mcp-local-bridge.mjs");

const children = [];
function run(name, command, args, onLine) {
  // Own process group: Ctrl+C reaches only this script, which stops each child once.
  const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const prefix = (stream, out) =>
    stream.on("data", (chunk) => {
      for (const line of chunk.toString().split("\n")) {
        if (!line.trim()) continue;
        out.write(`[${name}] ${line}\n`);
        onLine?.(line);
      }
    });
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  child.on("exit", (code, signal) => {
    if (!stopping) {
      console.error(`[dev] ${name} exited (${signal ?? code}); stopping the rest`);
      stop(code ?? 1);
    }
  });
  children.push(child);
  return child;
}

// The bridge first: wrangler reads BRIDGE_URL / BRIDGE_TOKEN from .dev.vars when it starts.
await new Promise((resolve) => {
  run("bridge", process.execPath, [bridgeBin, "--config", join(root, "mcp.json"), "--port", bridgePort], (line) => {
    if (line.includes("listening on")) resolve();
  });
});
run("worker", process.execPath, [wranglerBin, "dev", "--ip", "127.0.0.1", "--port", port, "--show-interactive-dev-session=false"]);
console.log(`[dev] page and API at http://127.0.0.1:${port}, bridge at http://127.0.0.1:${bridgePort} (Ctrl+C stops everything)`);

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of alive) child.kill("SIGINT");
  const force = setTimeout(() => alive.forEach((c) => c.kill("SIGKILL")), 15_000);
  Promise.all(alive.map((c) => new Promise((resolve) => c.once("exit", resolve)))).then(() => {
    clearTimeout(force);
    process.exit(code);
  });
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
