// End-to-end cost of one chat turn with one tool call, through the real Worker
// (`wrangler dev`: ChatSession Durable Object over WebSocket → fake Gemini →
// local bridge → @modelcontextprotocol/server-filesystem `list_directory` → fake
// Gemini again → `turn_end`), against the floor: the same three calls made
// directly from Node (bench/lib/turn-floor.ts). Measured in one run:
//   1. warm-up: 20 Worker turns (own session) and 20 floor iterations;
//   2. 200 sequential turns on one fresh session, `message` sent → `turn_end`
//      received, p50/p99, errors (an `error` frame, a tool error, turn_end ≠ complete);
//   3. 50 sessions in parallel (own sockets), 5 sequential turns each: p50/p99 over
//      the 250, errors, wall time;
//   4. the floor, 200 iterations. Floor and sequential Worker turns run in 10
//      blocks of 20 (the order rotated each block) so drift of this small machine
//      (CPU frequency, other load, GC) hits all alike instead of whichever ran last;
//      the goal is Worker p50 / floor p50 ≤ 1.5. The floor sends the conversation so
//      far with each message, as the session does (bench/lib/turn-floor.ts); a
//      second floor sending only the new message is printed for comparison with
//      figures from before that fix. The Worker runs twice per block: through
//      `wrangler dev`'s public port, whose dev-only proxy (a second workerd that
//      forwards every request and WebSocket frame) no deployment has, and directly
//      on the port of the workerd that runs the Worker (found by probing the
//      group's listening sockets for /api/health). wrangler's dev inspector has the
//      runtime's Network events off (bench/lib/turn-worker.ts, as `npm run dev` has):
//      one more direct row per block turns them on, to show what they cost;
//   5. the deploy bundle's gzip size from `wrangler deploy --dry-run` (goal < 800 KiB).
// Everything runs on 127.0.0.1 with temp dirs: `--persist-to` for wrangler state, an
// empty `--env-file` so the repo's .dev.vars is not read; RATE_LIMIT_* are env.ts's
// maxima (10,000/min, burst 1,000: larger values fall back to 20/5). Every process
// started is stopped in `finally` and on SIGINT/SIGTERM (wrangler dev → workerd via
// its own process group). `--worker-dir DIR` runs the Worker from another checkout
// (a baseline commit) under this same bench; `--baseline-dir DIR` runs a second Worker
// from another checkout beside this one, in the same rotating blocks (before and after
// in one run, on its workerd directly); `--state-dir DIR` puts the Durable
// Objects' storage there (e.g. /dev/shm, to measure without disk syncs). Run: npm run bench:turn
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startBridge, type RunningBridge } from "../tests/fixtures/bridge";
import { startFakeLlm, type FakeLlm } from "../tests/fixtures/fake-gemini";
import { filesystemBin } from "../tests/fixtures/servers";
import { errorText, repoRoot, stopBridgeTree } from "./lib/procs";
import { startFloor, type Floor } from "./lib/turn-floor";
import { setNetworkEvents } from "../scripts/lib/dev-network-events.mjs";
import { startWorker, wranglerBin, wranglerEnv, type BenchWorker } from "./lib/turn-worker";
import { runToEnd, type Group } from "./lib/turn-procs";
import { breakdown, count, fmt, p, row, table, type Row } from "./lib/turn-report";
import { TimedSession, type TurnResult } from "./lib/timed-session";

const WARMUP = 20;
const BLOCKS = 10;
const BLOCK = 20;
const PARALLEL = { sessions: 50, turns: 5 };
const BUDGET_MS = 215_000; // phases still pending after this are skipped (reported as such)
const TURN_TIMEOUT_MS = 20_000;
const WORKER_KEY = "bench-turn-worker";
const FLOOR_KEY = "bench-turn-floor";
const MODEL = "gemini-2.5-flash";
const GOAL_RATIO = 1.5;
const GOAL_GZIP_KIB = 800;

const cli = parseArgs({ options: { "worker-dir": { type: "string" }, "state-dir": { type: "string" }, "baseline-dir": { type: "string" } } }).values;
const workerDir = cli["worker-dir"] ?? repoRoot;
// A second Worker from another checkout (e.g. `git worktree add ../base HEAD~1`), run beside
// this one and measured in the same rotating blocks: a before/after that machine drift
// cannot bias, for changes smaller than the run-to-run spread.
const baselineDir = cli["baseline-dir"];
// Where wrangler dev keeps the Durable Objects' SQLite files. Each storage write a turn
// makes is committed (a disk sync here) before the object's next message leaves it;
// `--state-dir /dev/shm` shows the turn without this machine's disk syncs.
const stateDir = cli["state-dir"];
const started = Date.now();
const overBudget = () => Date.now() - started > BUDGET_MS;

const floorRow = row("floor: Node, genai stream → MCP callTool → genai stream (same conversation)");
const freshRow = row("floor, fresh conversation each time (the floor before the fix)");
const seqRow = row("Worker: 1 session, sequential turns, through wrangler dev's proxy");
const directRow = row("Worker: 1 session, sequential turns, workerd directly (no dev proxy)");
const tracedRow = row("Worker: the same, wrangler's runtime Network events on (plain `wrangler dev`)");
const parRow = row(`Worker: ${PARALLEL.sessions} sessions × ${PARALLEL.turns} turns in parallel`);
const baseRow = row(`baseline Worker (${baselineDir ?? "none"}): 1 session, sequential turns, workerd directly`);
const bundleRow = row("bundle: wrangler deploy --dry-run");
const observations: string[] = [];
/** This tree's turn minus the baseline's, per pair of turns run back to back (--baseline-dir). */
const pairDiffs: number[] = [];

// ---- what gets cleaned up ----
const groups = new Set<Group>();
const clients = new Set<TimedSession>();
let fake: FakeLlm | undefined;
let bridge: RunningBridge | undefined;
let floor: Floor | undefined;
let freshFloor: Floor | undefined;
let tmp: string | undefined;
let cleaning: Promise<void> | undefined;
const cleanupDirs: string[] = [];

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of clients) c.close();
    await floor?.close().catch(() => undefined);
    await freshFloor?.close().catch(() => undefined);
    for (const g of groups) {
      const note = await g.stop();
      if (note) log(note);
    }
    if (bridge) {
      for (const note of await stopBridgeTree(bridge)) log(note);
    }
    await fake?.stop().catch(() => undefined);
    if (bridge) rmSync(bridge.dir, { recursive: true, force: true }); // startBridge's own temp dir
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    for (const dir of cleanupDirs) rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping everything\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.once("exit", () => {
  for (const g of groups) g.killNow();
  if (bridge?.process.exitCode === null) bridge.process.kill("SIGKILL");
});

const log = (text: string) => process.stderr.write(`bench: ${text}\n`);

async function setAuto(url: string, key: string, root: string): Promise<void> {
  const body = { call: { call: { name: "filesystem__list_directory", args: { path: root } } }, text: "done" };
  const res = await fetch(`${url}/__auto/${key}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`fake LLM auto mode: HTTP ${res.status}`);
}

async function openSession(url: string, id: string): Promise<TimedSession> {
  const client = await TimedSession.open(url, id, 15_000);
  clients.add(client);
  if (!(await client.waitForServers(15_000))) observations.push(`session ${id}: servers not ready after 15 s; turns started anyway`);
  return client;
}

async function workerTurns(client: TimedSession, r: Row | undefined, n: number, label: string): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const result = await client.turn(`${label}: list the files (${i + 1})`, TURN_TIMEOUT_MS);
    if (r) count(r, result);
    if (result.error === undefined) ms.push(result.ms);
  }
  return ms;
}

async function floorTurns(f: Floor | undefined, r: Row | undefined, n: number): Promise<number[]> {
  if (!f) return [];
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const result: TurnResult = await f.iteration(`floor: list the files (${i + 1})`).then(
      (t) => t,
      (e: unknown) => ({ ms: 0, error: errorText(e) }),
    );
    if (r) count(r, result);
    if (result.error === undefined) ms.push(result.ms);
  }
  return ms;
}

async function transportProbe(seq: TimedSession, url: string, via: string): Promise<void> {
  const pings: number[] = [];
  const echoes: number[] = [];
  const health: number[] = [];
  for (let i = 0; i < 100; i++) pings.push(await seq.ping(5_000));
  for (let i = 0; i < 100; i++) echoes.push(await seq.echo(5_000));
  for (let i = 0; i < 100; i++) {
    const t = performance.now();
    await (await fetch(`${url}/api/health`)).text();
    health.push(performance.now() - t);
  }
  observations.push(
    `transport ${via}: WebSocket ping→pong p50 ${fmt(p(pings, 50))} ms (the runtime answers), a frame the object answers p50 ${fmt(p(echoes, 50))} ms, GET /api/health p50 ${fmt(p(health, 50))} ms (100 each)`,
  );
}

/** Runs a phase; a failure is written into its rows and the run goes on. */
async function phase(name: string, rows: Row[], body: () => Promise<void>): Promise<void> {
  if (overBudget()) {
    for (const r of rows) r.notes.push(`${name} skipped: over the time budget`);
    return;
  }
  log(`${name} (${((Date.now() - started) / 1000).toFixed(0)} s in)`);
  try {
    await body();
  } catch (error) {
    for (const r of rows) r.notes.push(`${name} failed: ${errorText(error)}`);
  }
}

async function main(): Promise<void> {
  tmp = mkdtempSync(join(tmpdir(), "bench-turn-"));
  const root = join(tmp, "root");
  mkdirSync(root);
  for (const name of ["notes.txt", "todo.md", "data.json"]) writeFileSync(join(root, name), `${name}\n`);
  const rootPath = realpathSync(root);
  const all = [floorRow, freshRow, seqRow, directRow, tracedRow, parRow];
  let worker: BenchWorker | undefined;
  let baseline: BenchWorker | undefined;
  await phase("start fake model, bridge, wrangler dev", all, async () => {
    fake = await startFakeLlm();
    await setAuto(fake.url, WORKER_KEY, rootPath);
    await setAuto(fake.url, FLOOR_KEY, rootPath);
    const servers = { filesystem: { type: "stdio", command: process.execPath, args: [filesystemBin, rootPath] } };
    bridge = await startBridge(servers, ["--log-level", "warn", "--no-watch", "--shutdown-timeout", "3"]);
    const t0 = performance.now();
    const options = {
      root: rootPath,
      fakeUrl: fake.url,
      apiKey: WORKER_KEY,
      bridge,
      stateParent: stateDir ?? tmp ?? tmpdir(),
      cleanupDirs,
      groups,
      observations,
    };
    worker = await startWorker({ ...options, dir: workerDir });
    observations.push(`wrangler dev ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    if (baselineDir) baseline = await startWorker({ ...options, dir: baselineDir });
  });
  const mark = worker?.group.seen() ?? 0;
  if (fake && bridge) {
    const [fakeUrl, b] = [fake.url, bridge];
    await phase("floor connect", [floorRow, freshRow], async () => {
      floor = await startFloor({ fakeUrl, apiKey: FLOOR_KEY, bridgeUrl: b.url, token: b.token, model: MODEL });
      freshFloor = await startFloor({ fakeUrl, apiKey: FLOOR_KEY, bridgeUrl: b.url, token: b.token, model: MODEL, fresh: true });
    });
  }

  await phase(`warm-up: ${WARMUP} turns each`, [floorRow, seqRow], async () => {
    const notes: string[] = [];
    if (worker) {
      const warm = await openSession(worker.url, `bench-warm-${Date.now()}`);
      const w = row("warm");
      const first = await warm.turn("warm-up: list the files (first)", TURN_TIMEOUT_MS);
      count(w, first);
      await workerTurns(warm, w, WARMUP - 1, "warm-up");
      notes.push(`Worker first turn ${fmt(first.ms)} ms, errors ${w.errors}/${w.turns}`);
      warm.close();
      for (const url of [worker.direct, baseline?.direct]) {
        if (!url) continue;
        const warmDirect = await openSession(url, `bench-warm-direct-${Date.now()}`);
        await workerTurns(warmDirect, w, WARMUP, "warm-up direct");
        warmDirect.close();
      }
    }
    if (floor) {
      const f = row("warm");
      await floorTurns(floor, f, WARMUP);
      await floorTurns(freshFloor, f, WARMUP);
      notes.push(`floor errors ${f.errors}/${f.turns}`);
    }
    observations.push(`warm-up: ${notes.join("; ")}`);
  });

  const blockP50: BlockP50 = { base: [], worker: [], direct: [], traced: [], floor: [], fresh: [] };
  await phase(`sequential: ${BLOCKS} rotating blocks × ${BLOCK}`, [floorRow, freshRow, seqRow, directRow, tracedRow], async () => {
    const seq = worker ? await openSession(worker.url, `bench-seq-${Date.now()}`) : undefined;
    const direct = worker?.direct ? await openSession(worker.direct, `bench-direct-${Date.now()}`) : undefined;
    const base = baseline?.direct ? await openSession(baseline.direct, `bench-base-${Date.now()}`) : undefined;
    // With a baseline, its turns and this tree's alternate one by one (who goes first swapping
    // each time), so neither Worker runs warmer than the other: an A/A run (the same tree
    // twice) in separate blocks came out 4-11% apart, the Worker measured right after its own
    // proxied turns ahead.
    const directTurns = async (b: number): Promise<void> => {
      if (!direct) return;
      if (!base) return void blockP50.direct.push(p(await workerTurns(direct, directRow, BLOCK, `direct b${b}`), 50));
      const mine: number[] = [];
      const theirs: number[] = [];
      for (let i = 0; i < BLOCK; i++) {
        const pair: [TimedSession, Row, number[]][] = [
          [direct, directRow, mine],
          [base, baseRow, theirs],
        ];
        for (const [session, r, into] of (i + b) % 2 === 0 ? pair : pair.reverse()) into.push(...(await workerTurns(session, r, 1, `pair b${b}`)));
        const [a, z] = [mine[i], theirs[i]];
        if (mine.length === i + 1 && theirs.length === i + 1 && a !== undefined && z !== undefined) pairDiffs.push(a - z);
      }
      blockP50.direct.push(p(mine, 50));
      blockP50.base.push(p(theirs, 50));
    };
    const runners = [
      async (b: number) => void (seq && blockP50.worker.push(p(await workerTurns(seq, seqRow, BLOCK, `seq b${b}`), 50))),
      async () => void (floor && blockP50.floor.push(p(await floorTurns(floor, floorRow, BLOCK), 50))),
      directTurns,
      async () => void (freshFloor && blockP50.fresh.push(p(await floorTurns(freshFloor, freshRow, BLOCK), 50))),
      async (b: number) => {
        if (!direct || !worker) return;
        await setNetworkEvents(worker.inspector, true);
        try {
          blockP50.traced.push(p(await workerTurns(direct, tracedRow, BLOCK, `traced b${b}`), 50));
        } finally {
          await setNetworkEvents(worker.inspector, false);
        }
      },
    ];
    for (let b = 0; b < BLOCKS; b++) {
      if (overBudget()) throw new Error(`over the time budget after ${b} blocks`);
      log(`  block ${b + 1}/${BLOCKS}`);
      for (let i = 0; i < runners.length; i++) await runners[(b + i) % runners.length]?.(b);
    }
    // Transport alone: a ping the runtime answers without running object code, and an HTTP route with no object.
    if (seq && worker)
      await transportProbe(seq, worker.url, "through wrangler dev").catch((e: unknown) => observations.push(`transport probe failed: ${errorText(e)}`));
    if (direct && worker?.direct)
      await transportProbe(direct, worker.direct, "workerd directly").catch((e: unknown) => observations.push(`transport probe failed: ${errorText(e)}`));
    seq?.close();
    direct?.close();
    base?.close();
  });

  await phase(`parallel: ${PARALLEL.sessions} sessions × ${PARALLEL.turns} turns`, [parRow], async () => {
    if (!worker) throw new Error("no Worker");
    const url = worker.url;
    const t0 = performance.now();
    const opened = await Promise.allSettled(Array.from({ length: PARALLEL.sessions }, (_, i) => openSession(url, `bench-par-${Date.now()}-${i}`)));
    const openMs = performance.now() - t0;
    const sessions = opened.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    for (const o of opened) if (o.status === "rejected") count(parRow, { ms: 0, error: `open failed: ${errorText(o.reason)}` });
    await Promise.all(sessions.map((s, i) => workerTurns(s, parRow, PARALLEL.turns, `par ${i}`)));
    const wall = performance.now() - t0;
    const turnsS = (wall - openMs) / 1000;
    parRow.notes.push(
      `wall ${(wall / 1000).toFixed(2)} s (opening ${sessions.length} sockets + MCP connect ${(openMs / 1000).toFixed(2)} s, turns ${turnsS.toFixed(2)} s = ${(parRow.samples.length / turnsS).toFixed(0)} ok turns/s)`,
    );
    for (const s of sessions) s.close();
  });

  await phase("bundle size", [bundleRow], async () => {
    const out = join(tmp ?? tmpdir(), "bundle");
    const { ended, output } = await runToEnd(
      "wrangler deploy --dry-run",
      process.execPath,
      [wranglerBin, "deploy", "--dry-run", "--outdir", out],
      wranglerEnv,
      60_000,
      groups,
    );
    const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output);
    if (!m) throw new Error(`${ended}, no "Total Upload" line: ${output.trim().split("\n").slice(-3).join(" | ").slice(0, 200)}`);
    const gzip = Number(m[2]);
    bundleRow.notes.push(`gzip ${gzip} KiB (total ${m[1]} KiB), goal < ${GOAL_GZIP_KIB} KiB: ${gzip < GOAL_GZIP_KIB ? "MET" : "NOT MET"}`);
  });

  if (worker) {
    const lines = worker.group
      .since(mark)
      .split("\n")
      .filter((l) => /error|warn|✘|▲|exception|uncaught/i.test(l));
    observations.push(
      `wrangler dev output during the run: ${lines.length} error/warn lines${lines.length ? `, e.g.:\n    ${[...new Set(lines.map((l) => l.trim().slice(0, 220)))].slice(0, 5).join("\n    ")}` : ""}`,
    );
    if (/Reloading|Detected changes/i.test(worker.group.since(mark)))
      observations.push("wrangler dev RELOADED during the run (a source file changed): sockets may have been cut");
  }
  const strays = [...clients].flatMap((c) => c.strays);
  if (strays.length) observations.push(`${strays.length} error frames outside any turn, e.g. ${strays[0]}`);
  if (bridge) {
    const bad = bridge
      .stderr()
      .split("\n")
      .filter((l) => /"level":"(warn|error)"/.test(l));
    if (bad.length) observations.push(`bridge logged ${bad.length} warn/error lines, e.g. ${bad[0]?.slice(0, 220)}`);
  }
  report(blockP50);
}

interface BlockP50 {
  base: number[];
  worker: number[];
  direct: number[];
  traced: number[];
  floor: number[];
  fresh: number[];
}

function ratioLine(label: string, worker: Row, base: Row): string {
  const ratio = p(worker.samples, 50) / p(base.samples, 50);
  return Number.isFinite(ratio)
    ? `${label} = ${ratio.toFixed(2)} (goal ≤ ${GOAL_RATIO}): ${ratio <= GOAL_RATIO ? "MET" : "NOT MET"}`
    : `${label}: not measured (see the table)`;
}

function report(blockP50: BlockP50): void {
  const out = ["", ...table([floorRow, freshRow, seqRow, directRow, tracedRow, ...(baselineDir ? [baseRow] : []), parRow], [bundleRow])];
  out.push(
    "",
    ratioLine("Worker (workerd directly) p50 / floor p50", directRow, floorRow),
    ratioLine("Worker (through wrangler dev) p50 / floor p50", seqRow, floorRow),
  );
  out.push(`wrangler's runtime Network events (dev-only tracing) add ${fmt(p(tracedRow.samples, 50) - p(directRow.samples, 50))} ms to the direct p50 when on`);
  if (baselineDir) {
    out.push(ratioLine("baseline Worker (workerd directly) p50 / floor p50", baseRow, floorRow));
    const change = p(directRow.samples, 50) / p(baseRow.samples, 50);
    out.push(`this tree / baseline, same run, workerd directly: ${fmt(p(directRow.samples, 50))} / ${fmt(p(baseRow.samples, 50))} ms = ${change.toFixed(3)}`);
    const diffs = [...pairDiffs].sort((x, y) => x - y);
    const at = (q: number) => fmt(diffs[Math.min(diffs.length - 1, Math.floor(q * diffs.length))] ?? Number.NaN);
    out.push(`this tree − baseline, turn by turn (${diffs.length} pairs, alternating): median ${at(0.5)} ms (quartiles ${at(0.25)} / ${at(0.75)})`);
    out.push("(with a baseline the two Workers take turns, each after the other's turn: both run a little slower than alone, so compare them with each other)");
    out.push(`Per-block p50 ms, baseline direct: ${blockP50.base.map(fmt).join(" ")}`);
  }
  out.push(ratioLine("for comparison with earlier runs: Worker (through wrangler dev) p50 / fresh-conversation floor p50", seqRow, freshRow));
  out.push(`Parallel errors across all sessions: ${parRow.errors} (goal 0): ${parRow.turns > 0 && parRow.errors === 0 ? "MET" : "NOT MET"}`);
  out.push(`Per-block p50 ms, floor:          ${blockP50.floor.map(fmt).join(" ")}`, `Per-block p50 ms, fresh floor:    ${blockP50.fresh.map(fmt).join(" ")}`);
  out.push(
    `Per-block p50 ms, Worker direct:  ${blockP50.direct.map(fmt).join(" ")}`,
    `Per-block p50 ms, Worker proxied: ${blockP50.worker.map(fmt).join(" ")}`,
  );
  out.push(`Per-block p50 ms, Worker traced:  ${blockP50.traced.map(fmt).join(" ")}`);
  out.push("", "Where the time goes (median ms; Worker marks are frame arrivals, which leave the isolate only when it waits on I/O):");
  out.push(
    `  floor: ${breakdown(floorRow, [
      ["model call 1", "", "model1"],
      ["tool call", "model1", "toolDone"],
      ["model call 2", "toolDone", "end"],
    ])}`,
  );
  const segments: [string, string, string][] = [
    ["send→turn_start", "", "turn_start"],
    ["turn_start→tool start (prepare, prompt, model call 1)", "turn_start", "tool"],
    ["tool call (client-seen)", "tool", "toolDone"],
    ["tool durationMs (session-reported)", "", "toolReported"],
    ["tool done→first text (model call 2)", "toolDone", "text"],
    ["first text→turn_end", "text", "end"],
  ];
  out.push(
    `  Worker, direct:     ${breakdown(directRow, segments)}`,
    `  Worker, traced:     ${breakdown(tracedRow, segments)}`,
    `  Worker, sequential: ${breakdown(seqRow, segments)}`,
    `  Worker, parallel:   ${breakdown(parRow, segments)}`,
  );
  if (baselineDir) out.push(`  baseline, direct:   ${breakdown(baseRow, segments)}`);
  out.push(
    "",
    "Observations:",
    `  - Durable Object state in ${stateDir ?? tmpdir()}${stateDir ? "" : " (the default; --state-dir moves it)"}`,
    ...observations.map((o) => `  - ${o}`),
    `  - load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; total ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  console.log(out.join("\n"));
}

try {
  await main();
} catch (error) {
  console.error(`bench failed: ${errorText(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
process.exit(process.exitCode ?? 0);
