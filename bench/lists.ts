// A new session's first model call with its tools, by where its server's list comes
// from (issue 34, cacheable lists): the real Worker under `wrangler dev`, the SDK's v2
// server with cache hints (tests/fixtures/ttl-server.mjs) behind a proxy that holds each
// MCP request DELAY_MS (a remote server), and the fake Gemini behind a proxy that notes
// when each model request arrives and whether it declared the server's tool. In rounds,
// each mode once per round (drift hits all alike):
//   fetched  a new session of a server the owner never used: it connects and lists first;
//   today    a new session of a server whose list has no ttl (0): last time's row at once,
//            its connect lists again in the background;
//   cached   a new session of a server whose list is fresh (ttl 10 min): the row at once,
//            its connect asks no list;
//   warm     a connected session's next turn;
//   none     a new session of a user with no server (what a new session costs by itself).
// Each mode's sessions belong to users who get only that mode's server (AUTH_MODE=token,
// the entries' `users`), so a session connects nothing else; "fetched" is a new user's
// first session. Figures: message sent → the model's first request (p50), → the server
// ready on the page (p50), and the list requests the server got per session. Goal:
// cached within 2 ms of warm. Everything is on 127.0.0.1; every process started is stopped.
// Run: npm run bench:lists [-- --rounds N]
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeLlm, type FakeLlm } from "../tests/fixtures/fake-gemini";
import type { SessionClient } from "../tests/fixtures/session-client";
import type { ServerMessage } from "../src/protocol/messages";
import { openSession } from "../tests/fixtures/session-client-node";
import { startTtlServer, type RunningTtlServer } from "../tests/fixtures/ttl-servers";
import { freePort, repoRoot, sleep } from "./lib/procs";
import { startGroup, type Group } from "./lib/turn-procs";

const DELAY_MS = 50;
const KEY = "bench-lists";
const GOAL_MS = 2;
const TTL_MS = 600_000;
const LISTS = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list"]);

const { values } = parseArgs({ options: { rounds: { type: "string", default: "10" } } });
const ROUNDS = Math.max(1, Number(values.rounds));
const wranglerBin = join(repoRoot, "node_modules", "wrangler", "bin", "wrangler.js");

type Mode = "none" | "fetched" | "today" | "cached" | "warm";
interface Sample {
  firstMs: number;
  readyMs: number;
  lists: number;
  declared: boolean;
}

/** The model request the proxy saw first after a message was sent: when, and whether it declared the tool asked about. */
let watch: { tool: string; at?: number; declared?: boolean } | undefined;
const servers: Server[] = [];
let llm: FakeLlm | undefined;
let ttl: RunningTtlServer | undefined;
let worker: Group | undefined;
const open = new Set<SessionClient>();

/** A pass-through proxy to `target`, holding each request `hold` ms; `seen` gets each request's body on arrival. */
async function proxy(target: string, hold: number, seen?: (body: string) => void): Promise<string> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen?.(body.toString("utf8"));
      setTimeout(() => {
        const out = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        out.on("error", () => res.destroy());
        out.end(body);
      }, hold);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;
const fmt = (ms: number) => (Number.isNaN(ms) ? "—" : ms.toFixed(1));

/** One turn on `client` with only `server` on: ms to the model's first request and to the server ready on the page. */
async function turn(client: SessionClient, server: string): Promise<Omit<Sample, "lists">> {
  watch = { tool: `${server}__echo` };
  const from = client.received.length;
  const sent = performance.now();
  let readyAt: number | undefined;
  const isReady = (m: ServerMessage) => m.type === "servers" && m.servers.some((s) => s.name === server && s.state === "ready");
  if (client.received.some(isReady)) readyAt = sent;
  const stop = client.observe({ frame: (_t, _b, m) => void (m && isReady(m) && (readyAt ??= performance.now())) });
  client.say("go");
  const end = await client.next((m) => m.type === "turn_end", from, 30_000);
  if (end.type === "turn_end" && end.reason !== "complete") throw new Error(`turn on ${server} ended ${end.reason}`);
  if (server) await client.next(isReady, 0, 30_000);
  stop();
  if (watch.at === undefined) throw new Error("the model was never asked");
  return { firstMs: watch.at - sent, readyMs: server ? (readyAt ?? performance.now()) - sent : Number.NaN, declared: watch.declared === true };
}

const tokens = new Map<string, string>();
const tokenOf = (user: string) => tokens.get(user) ?? (tokens.set(user, crypto.randomUUID().replace(/-/g, "")).get(user) as string);

async function session(url: string, user: string, server: string): Promise<SessionClient> {
  const headers = { authorization: `Bearer ${tokenOf(user)}` };
  const client = await openSession(url, `lists-${crypto.randomUUID()}`, { timeoutMs: 30_000, headers });
  open.add(client);
  client.send({ type: "set_servers", enabled: [server] });
  return client;
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), "bench-lists-"));
  llm = await startFakeLlm();
  await fetch(`${llm.url}/__auto/${KEY}`, { method: "POST", body: JSON.stringify({ call: { text: "hi" }, text: "done" }) });
  ttl = await startTtlServer();
  const slow = await proxy(ttl.base, DELAY_MS);
  const timedLlm = await proxy(llm.url, 0, (body) => {
    if (watch && watch.at === undefined) Object.assign(watch, { at: performance.now(), declared: body.includes(`"${watch.tool}"`) });
  });
  const tag = crypto.randomUUID().slice(0, 8);
  // One server per ttl; each user gets one of them only, so a session connects nothing else.
  const fetchers = Array.from({ length: ROUNDS }, (_, i) => `new${i}`);
  const entry = (ttlMs: number, users: string[]) => ({ type: "http", url: `${slow}/t/${tag}-${ttlMs}/${ttlMs}/private/mcp`, users });
  const config = { servers: { today: entry(0, ["main-today"]), cached: entry(TTL_MS, ["main-cached", ...fetchers]) } };
  for (const user of ["main-today", "main-cached", "nobody", ...fetchers]) tokenOf(user);
  const envFile = join(tmp, "empty.env");
  writeFileSync(envFile, "");
  const [port, inspector] = [await freePort(), await freePort()];
  const vars = {
    GEMINI_API_KEY: KEY,
    GEMINI_BASE_URL: timedLlm,
    MCP_CONFIG: JSON.stringify(config),
    AUTH_MODE: "token",
    ACCESS_TOKENS: [...tokens].map(([user, token]) => `${user}:${token}`).join(","),
    RATE_LIMIT_PER_MINUTE: "10000",
    RATE_LIMIT_BURST: "1000",
  };
  const args = [wranglerBin, "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector)];
  args.push("--show-interactive-dev-session=false", "--persist-to", join(tmp, "state"), "--env-file", envFile);
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  worker = startGroup("wrangler dev", process.execPath, args, { ...process.env, WRANGLER_SEND_METRICS: "false" }, repoRoot);
  await worker.waitFor(/Ready on http:\/\/\S+/, 90_000);
  const url = `http://127.0.0.1:${port}`;
  process.stderr.write(`bench: ${ROUNDS} rounds; MCP requests held ${DELAY_MS} ms\n`);

  // The owners' rows for "today" and "cached" (and the warm session): one session each, connected and past a turn.
  const warmClient = await session(url, "main-cached", "cached");
  await turn(warmClient, "cached");
  const primer = await session(url, "main-today", "today");
  await turn(primer, "today");
  primer.close();
  await sleep(500);

  const samples: Record<Mode, Sample[]> = { none: [], fetched: [], today: [], cached: [], warm: [] };
  const listCount = async (server: string) => (await ttl?.methods(`${tag}-${server === "today" ? 0 : TTL_MS}`))?.filter((m) => LISTS.has(m)).length ?? 0;
  for (let round = 0; round < ROUNDS; round++) {
    const modes: [Mode, string, string][] = [
      ["fetched", fetchers[round] ?? "new0", "cached"],
      ["today", "main-today", "today"],
      ["cached", "main-cached", "cached"],
      ["none", "nobody", ""],
    ];
    for (const [mode, user, server] of modes) {
      const before = await listCount(server);
      const client = await session(url, user, server);
      const sample = await turn(client, server);
      client.close();
      open.delete(client);
      samples[mode].push({ ...sample, lists: (await listCount(server)) - before });
    }
    const before = await listCount("cached");
    samples.warm.push({ ...(await turn(warmClient, "cached")), lists: (await listCount("cached")) - before });
  }

  console.log(`\n| new session's list | sessions | first model request p50 ms | server ready p50 ms | list requests per session | tool declared |`);
  console.log(`|---|---:|---:|---:|---:|---:|`);
  for (const mode of ["none", "fetched", "today", "cached", "warm"] as const) {
    const s = samples[mode];
    const lists = s.reduce((sum, x) => sum + x.lists, 0) / s.length;
    const declared = mode === "none" ? "—" : `${s.filter((x) => x.declared).length}/${s.length}`;
    console.log(`| ${mode} | ${s.length} | ${fmt(p50(s.map((x) => x.firstMs)))} | ${fmt(p50(s.map((x) => x.readyMs)))} | ${lists.toFixed(1)} | ${declared} |`);
  }
  const first = (mode: Mode) => p50(samples[mode].map((x) => x.firstMs));
  const gap = first("cached") - first("warm");
  console.log(`\nCached - none (a new session without servers), first model request: ${fmt(first("cached") - first("none"))} ms`);
  console.log(
    `Cached - warm, first model request: ${fmt(gap)} ms (goal ≤ ${GOAL_MS} ms, MCP requests ${DELAY_MS} ms late): ${gap <= GOAL_MS ? "MET" : "NOT MET"}`,
  );
}

async function cleanup(): Promise<void> {
  for (const client of open) void client.close();
  await worker?.stop().catch(() => undefined);
  for (const server of servers) server.close();
  await ttl?.stop().catch(() => undefined);
  await llm?.stop().catch(() => undefined);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanup().then(() => process.exit(130)));
main().then(cleanup, async (error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  await cleanup();
  process.exitCode = 1;
});
