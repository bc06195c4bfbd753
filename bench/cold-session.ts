// Time to the first model request on a cold session against a warm one, with MCP
// servers that answer 100 ms late. The real Worker under `wrangler dev`, the real
// bridge (server-filesystem) behind an in-process proxy that holds every request
// 100 ms, and the fake Gemini behind a proxy that notes when each model request
// arrives. Measured in one run:
//   1. warm: SESSIONS sessions, each connected and past one turn, then one measured
//      turn each (message sent → the model's first request arrives);
//   2. cold: wrangler dev restarted (same --persist-to), so every session object is
//      evicted; each session reconnects and sends at once; the same figure.
// Goal: cold p50 within 10 ms of warm p50, whatever the servers' latency.
// `--worker-dir DIR` runs the Worker from another checkout (a baseline commit) with
// this bench. Everything is on 127.0.0.1; every process started is stopped.
// Run: npm run bench:cold
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startBridge, type RunningBridge } from "../tests/fixtures/bridge";
import { startFakeLlm, type FakeLlm } from "../tests/fixtures/fake-gemini";
import { filesystemBin } from "../tests/fixtures/servers";
import { freePort, repoRoot, sleep } from "./lib/procs";
import { startGroup, type Group } from "./lib/turn-procs";
import { TimedSession } from "./lib/timed-session";

const SESSIONS = 10;
const DELAY_MS = 100;
const KEY = "bench-cold";
const GOAL_MS = 10;

const { values } = parseArgs({ options: { "worker-dir": { type: "string" } } });
const workerDir = values["worker-dir"] ?? repoRoot;
const wranglerBin = join(repoRoot, "node_modules", "wrangler", "bin", "wrangler.js");
const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

/** A pass-through HTTP proxy to `target`; `hold` ms before each request goes on; `seen` on arrival. */
async function proxy(target: string, hold: number, seen?: () => void): Promise<{ url: string; server: Server }> {
  const to = new URL(target);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen?.();
    const forward = () => {
      const out = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on("error", () => res.destroy());
      req.pipe(out);
    };
    if (hold > 0) setTimeout(forward, hold);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;
const fmt = (ms: number) => ms.toFixed(1);

let firstModelRequest: number | undefined;
const servers: Server[] = [];
let bridge: RunningBridge | undefined;
let llm: FakeLlm | undefined;
let worker: Group | undefined;
const clients = new Set<TimedSession>();

async function startWorker(port: number, inspector: number, persist: string, vars: Record<string, string>): Promise<Group> {
  const envFile = join(persist, "..", "empty.env");
  writeFileSync(envFile, "");
  const args = [
    wranglerBin,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspector),
    "--show-interactive-dev-session=false",
    "--persist-to",
    persist,
    "--env-file",
    envFile,
  ];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const group = startGroup("wrangler dev", process.execPath, args, wranglerEnv, workerDir);
  await group.waitFor(/Ready on http:\/\/\S+/, 90_000);
  return group;
}

/** Sends a message and resolves with ms until the model's first request, and the whole turn's ms. */
async function measured(client: TimedSession, text: string): Promise<{ firstMs: number; turnMs: number }> {
  firstModelRequest = undefined;
  const sent = performance.now();
  const result = await client.turn(text, 30_000);
  if (result.error) throw new Error(`turn failed: ${result.error}`);
  if (firstModelRequest === undefined) throw new Error("the model was never asked");
  return { firstMs: firstModelRequest - sent, turnMs: result.ms };
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), "bench-cold-"));
  const root = mkdtempSync(join(tmp, "fs-"));
  writeFileSync(join(root, "notes.txt"), "remember the milk\n");
  llm = await startFakeLlm();
  await fetch(`${llm.url}/__auto/${KEY}`, {
    method: "POST",
    body: JSON.stringify({ call: { call: { name: "filesystem__list_directory", args: { path: root } } }, text: "done" }),
  });
  bridge = await startBridge({ filesystem: { command: process.execPath, args: [filesystemBin, root] } }, ["--restart-backoff", "0"]);
  const slowBridge = await proxy(bridge.url, DELAY_MS);
  const timedLlm = await proxy(llm.url, 0, () => (firstModelRequest ??= performance.now()));
  servers.push(slowBridge.server, timedLlm.server);
  const vars = {
    GEMINI_API_KEY: KEY,
    GEMINI_BASE_URL: timedLlm.url,
    BRIDGE_URL: slowBridge.url,
    BRIDGE_TOKEN: bridge.token,
    MCP_CONFIG: JSON.stringify({ servers: { filesystem: { command: "unused", alwaysAllow: ["list_directory"] } } }),
    RATE_LIMIT_PER_MINUTE: "10000",
    RATE_LIMIT_BURST: "1000",
  };
  const [port, inspector] = [await freePort(), await freePort()];
  const persist = join(tmp, "state");
  const url = `http://127.0.0.1:${port}`;
  worker = await startWorker(port, inspector, persist, vars);
  process.stderr.write(`bench: worker from ${workerDir}; ${SESSIONS} sessions; MCP requests held ${DELAY_MS} ms\n`);

  const ids = Array.from({ length: SESSIONS }, (_, i) => `cold-${i}-${crypto.randomUUID()}`);
  const warm: { firstMs: number; turnMs: number }[] = [];
  for (const id of ids) {
    const client = await TimedSession.open(url, id, 30_000);
    clients.add(client);
    await client.waitForServers(30_000);
    await measured(client, "first turn: connects and discovers");
    warm.push(await measured(client, "warm turn"));
  }
  for (const client of clients) client.close();
  clients.clear();

  process.stderr.write("bench: restarting wrangler dev (every session object evicted)\n");
  await worker.stop();
  worker = await startWorker(port, inspector, persist, vars);
  await sleep(500); // the dev proxy settles; measured turns start from a quiet Worker
  const cold: { firstMs: number; turnMs: number }[] = [];
  for (const id of ids) {
    const client = await TimedSession.open(url, id, 30_000);
    clients.add(client);
    cold.push(await measured(client, "cold turn"));
    client.close();
    clients.delete(client);
  }

  const [warmFirst, coldFirst] = [p50(warm.map((r) => r.firstMs)), p50(cold.map((r) => r.firstMs))];
  const gap = coldFirst - warmFirst;
  console.log(`\n| session | turns | first model request p50 ms | turn p50 ms |\n|---|---:|---:|---:|`);
  console.log(`| warm (connected) | ${warm.length} | ${fmt(warmFirst)} | ${fmt(p50(warm.map((r) => r.turnMs)))} |`);
  console.log(`| cold (object evicted) | ${cold.length} | ${fmt(coldFirst)} | ${fmt(p50(cold.map((r) => r.turnMs)))} |`);
  console.log(
    `\nCold - warm, first model request: ${fmt(gap)} ms (goal ≤ ${GOAL_MS} ms, MCP servers ${DELAY_MS} ms late): ${gap <= GOAL_MS ? "MET" : "NOT MET"}`,
  );
  console.log(`Worker: ${workerDir === repoRoot ? "this checkout" : workerDir}`);
}

async function cleanup(): Promise<void> {
  for (const client of clients) client.close();
  await worker?.stop().catch(() => undefined);
  for (const server of servers) server.close();
  await bridge?.stop().catch(() => undefined);
  await llm?.stop().catch(() => undefined);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanup().then(() => process.exit(130)));
main().then(cleanup, async (error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  await cleanup();
  process.exitCode = 1;
});
