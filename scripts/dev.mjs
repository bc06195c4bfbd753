#!/usr/bin/env node
// `npm run dev`: runs every development process together (today `wrangler dev`;
// the local bridge joins it) with their output prefixed, and one Ctrl+C stops all.
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

const processes = [
  { name: "worker", command: process.execPath, args: [wranglerBin, "dev", "--ip", "127.0.0.1", "--port", port, "--show-interactive-dev-session=false"] },
];

const children = processes.map(({ name, command, args }) => {
  const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  const prefix = (stream, out) =>
    stream.on("data", (chunk) => {
      for (const line of chunk.toString().split("\n")) if (line.trim()) out.write(`[${name}] ${line}\n`);
    });
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  child.on("exit", (code, signal) => {
    if (!stopping) {
      console.error(`[dev] ${name} exited (${signal ?? code}); stopping the rest`);
      stop(code ?? 1);
    }
  });
  return child;
});

console.log(`[dev] page and API at http://127.0.0.1:${port} (Ctrl+C stops everything)`);

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of alive) child.kill("SIGTERM");
  const force = setTimeout(() => alive.forEach((c) => c.kill("SIGKILL")), 10_000);
  Promise.all(alive.map((c) => new Promise((resolve) => c.once("exit", resolve)))).then(() => {
    clearTimeout(force);
    process.exit(code);
  });
}
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
