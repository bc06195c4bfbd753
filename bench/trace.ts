// One warm turn taken apart, for this tree and `--worker-dir DIR` (another checkout, a
// baseline commit) in the same run, with the bench:turn set-up (fake Gemini, real bridge +
// server-filesystem, `wrangler dev`, one session, N sequential turns):
//   - storage syncs (fsync/fdatasync) workerd makes per turn, counted with strace on the
//     Worker's processes, per Durable Object class. Every commit that a frame or a fetch
//     waits for (the output gate) is one, so this is the turn's path in storage round
//     trips; unlike a time it does not move with the machine's load: a drift here is a
//     regression in our code, whatever else runs;
//   - the Worker's own phases (src/session/turn-trace.ts: `phases` on its `turn ended`
//     line), the mean of each phase. A checkout from before the trace has none.
// Needs strace (Debian: apt-get install strace) and ptrace rights over our own children.
// Run: npm run bench:trace [-- --turns N --worker-dir DIR]
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { RunningBridge } from "../tests/fixtures/bridge";
import { descendantsOf, errorText, repoRoot } from "./lib/procs";
import { OneToolTurnFixture } from "./lib/one-tool-turn";
import { TimedSession } from "./lib/timed-session";
import type { Group } from "./lib/turn-procs";
import { startWorker } from "./lib/turn-worker";

const KEY = "bench-trace";
const cli = parseArgs({ options: { turns: { type: "string" }, "worker-dir": { type: "string" } } }).values;
const turns = Number(cli.turns ?? 50);
const WARMUP = 10;
const SYNC_CALLS = ["fsync", "fdatasync", "sync_file_range", "msync"];
const log = (text: string) => process.stderr.write(`trace: ${text}\n`);

interface Count {
  worker: string;
  /** Syncs per turn by Durable Object class, and by call. */
  byClass: Record<string, number>;
  byCall: Record<string, number>;
  p50: number;
  /** Mean ms per phase of the Worker's `turn ended` lines (empty for a checkout without them). */
  phases: Map<string, number>;
}

/**
 * strace on every thread of `pids` while `during` runs: the sync calls, counted per Durable
 * Object class (the folder of the file synced: miniflare keeps one per class) and per call.
 */
async function countSyncs(pids: number[], during: () => Promise<void>): Promise<{ byClass: Record<string, number>; byCall: Record<string, number> }> {
  const args = ["-f", "-y", "-qq", "-e", `trace=${SYNC_CALLS.join(",")}`, ...pids.flatMap((pid) => ["-p", String(pid)])];
  const strace = spawn("strace", args, { stdio: ["ignore", "ignore", "pipe"] });
  let report = "";
  strace.stderr.on("data", (chunk: Buffer) => {
    report += chunk.toString();
  });
  const ended = new Promise<void>((resolve) => strace.once("close", () => resolve()));
  const threads = pids.reduce((n, pid) => n + taskCount(pid), 0);
  // Counting starts once every thread has its tracer (-qq hides strace's attach lines).
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (tracedCount(pids) >= threads) {
        clearInterval(poll);
        resolve();
      }
    }, 20);
    strace.once("close", () => {
      clearInterval(poll);
      reject(new Error(`strace ended: ${report.slice(0, 400)}`));
    });
  });
  try {
    await during();
  } finally {
    strace.kill("SIGINT");
    await ended;
  }
  const byClass: Record<string, number> = {};
  const byCall: Record<string, number> = {};
  for (const m of report.matchAll(/(\w+)\(\d+<([^>]*)>/g)) {
    const [, call = "", path = ""] = m;
    if (!SYNC_CALLS.includes(call)) continue;
    byCall[call] = (byCall[call] ?? 0) + 1;
    const folder = path.split("/").slice(-2, -1)[0] ?? "?";
    const name = folder.replace(/^edgehost-/, "");
    byClass[name] = (byClass[name] ?? 0) + 1;
  }
  return { byClass, byCall };
}

function taskCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
}

/** Threads of `pids` that have a tracer. */
function tracedCount(pids: number[]): number {
  let n = 0;
  for (const pid of pids) {
    for (const tid of readdirSync(`/proc/${pid}/task`, { withFileTypes: false }).map(String)) {
      try {
        if (/TracerPid:\s*[1-9]/.test(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"))) n++;
      } catch {
        // the thread ended
      }
    }
  }
  return n;
}

async function measure(dir: string, label: string, fakeUrl: string, bridge: RunningBridge, root: string, tmp: string, groups: Set<Group>): Promise<Count> {
  const worker = await startWorker({ dir, root, fakeUrl, apiKey: KEY, bridge, stateParent: tmp, cleanupDirs: [], groups, observations: [] });
  try {
    const session = await TimedSession.open(worker.direct ?? worker.url, `syncs-${Date.now()}`, 15_000);
    await session.waitForServers(15_000);
    for (let i = 0; i < WARMUP; i++) await session.turn(`warm-up ${i}`, 20_000);
    const workerd = descendantsOf(worker.group.pid).filter((pid) => commOf(pid) === "workerd");
    if (workerd.length === 0) throw new Error("no workerd process under wrangler dev");
    const ms: number[] = [];
    const from = worker.group.seen();
    const counts = await countSyncs(workerd, async () => {
      for (let i = 0; i < turns; i++) {
        const r = await session.turn(`counted ${i}`, 20_000);
        if (r.error) throw new Error(`turn ${i}: ${r.error}`);
        ms.push(r.ms);
      }
      // Commits still on their way when the last turn_end left.
      await session.turn("last", 20_000);
    });
    session.client.close();
    ms.sort((a, b) => a - b);
    const per = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).map(([name, n]) => [name, n / (turns + 1)]));
    const phases = phaseMedians(worker.group.since(from));
    return { worker: label, byClass: per(counts.byClass), byCall: per(counts.byCall), p50: ms[Math.floor(ms.length / 2)] ?? Number.NaN, phases };
  } finally {
    groups.delete(worker.group);
    await worker.group.stop(3_000);
  }
}

/** Means of the `turn ended` lines' phases, in the order they first appear. */
function phaseMedians(output: string): Map<string, number> {
  const seen = new Map<string, number[]>();
  for (const line of output.split("\n")) {
    const at = line.indexOf("{");
    if (!line.includes('"turn ended"') || at < 0) continue;
    try {
      const { phases } = JSON.parse(line.slice(at)) as { phases?: Record<string, number> };
      for (const [name, ms] of Object.entries(phases ?? {})) seen.set(name, [...(seen.get(name) ?? []), ms]);
    } catch {
      // a line cut by the output's buffer
    }
  }
  // The runtime's clock moves in whole ms: a mean over many turns has the resolution a median lacks.
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return new Map([...seen].map(([name, xs]) => [name, mean(xs)]));
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

const fixture = new OneToolTurnFixture();

async function main(): Promise<void> {
  const { tmp, rootPath, fake, bridge } = await fixture.start("bench-syncs-", KEY);
  const { groups } = fixture;
  const rows: Count[] = [];
  log("this tree");
  rows.push(await measure(repoRoot, "this tree", fake.url, bridge, rootPath, tmp, groups));
  const other = cli["worker-dir"];
  if (other) {
    log(other);
    rows.push(await measure(other, other, fake.url, bridge, rootPath, tmp, groups));
  }
  const total = (c: Count) => Object.values(c.byCall).reduce((x, y) => x + y, 0);
  const classes = [...new Set(rows.flatMap((c) => Object.keys(c.byClass)))].sort();
  const fmt = (n: number | undefined) => (n ?? 0).toFixed(2);
  console.log(`\n${turns} warm turns each (one tool call, one answer): storage syncs workerd made per turn, by Durable Object class\n`);
  console.log(`| Worker | syncs per turn | ${classes.join(" | ")} | turn p50 ms (traced) |`);
  console.log(`|---|---:|${classes.map(() => "---:|").join("")}---:|`);
  for (const c of rows) console.log(`| ${c.worker} | ${fmt(total(c))} | ${classes.map((k) => fmt(c.byClass[k])).join(" | ")} | ${c.p50.toFixed(1)} |`);
  const [mine, base] = rows;
  if (mine && base) console.log(`\nthis tree − ${base.worker}: ${(total(mine) - total(base)).toFixed(2)} syncs per turn`);
  const names = [...new Set(rows.flatMap((c) => [...c.phases.keys()]))];
  console.log("\nThe Worker's phases (mean ms: the runtime's clock moves in whole ms; each phase ends at an I/O event: see src/session/turn-trace.ts)\n");
  console.log(`| phase | ${rows.map((c) => c.worker).join(" | ")} |`);
  console.log(`|---|${rows.map(() => "---:|").join("")}`);
  for (const name of names) console.log(`| ${name} | ${rows.map((c) => (c.phases.has(name) ? fmt(c.phases.get(name)) : "-")).join(" | ")} |`);
}

try {
  await main();
} catch (error) {
  console.error(`syncs: failed: ${errorText(error)}`);
  process.exitCode = 1;
} finally {
  await fixture.stop();
}
