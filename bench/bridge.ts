// Our local bridge against the stdio floor and two peer stdio→Streamable HTTP
// gateways (supergateway --stateful, mcp-proxy), all fronting the same server
// (@modelcontextprotocol/server-everything, tool `echo`). This 2-core machine's speed
// drifts from minute to minute, so all four paths are started first and every timed
// phase runs in short rounds visiting the paths in turn, order rotated each round, so
// drift hits every path alike. One path is driven at a time; the others sit idle.
//   1. start all (each its own server process); 1 s later VmRSS of each bridge/peer
//      process (own; whole tree in brackets). Per path one SDK client and, for HTTP,
//      a keep-alive undici Pool posting raw on that client's session (peers spawning
//      a child per session would otherwise be measured on spawns, not proxying);
//   2. connect+initialize of a fresh SDK client: 5 rounds × 1 per path, median;
//   3. warm-up of every path: 500 sequential calls, then 10,000 calls 50 in flight
//      (with fewer the JIT is still cold and the bridge's rate rises round by round);
//   4. sequential SDK `echo`: 10 rounds × 50 calls per path; p50/p99 of the pooled 500;
//   5. throughput: 10 rounds × 400 raw `tools/call` POSTs per path, 50 in flight (the
//      floor: its SDK client); calls counted only if the reply has `result`. Total
//      calls / total time, per-round min–max, and the goal's ratio: the median over
//      rounds of bridge / better peer within the round;
//   6. direct children of the bridge/peer pid while 20 SDK sessions are open (each
//      initialized, one echo call), path by path; RSS again 1 s after;
//   7. on our bridge, the two revisions it serves against each other (bench/lib/eras.ts):
//      echo p50 and throughput, 2026-07-28 stateless vs 2025-11-25 sessionful, and an
//      input_required round vs a 2025 elicitation; and both against the issue's floor, raw
//      stdio echo on server-everything itself plus a bare keep-alive HTTP round trip on
//      loopback (bench/lib/floor.ts), timed in the same rounds. `--eras` runs only the
//      bridge and this.
// Processes run as `node <script>`, so the pid measured is the node process itself.
// Everything started is stopped in a finally block or on SIGINT/SIGTERM, descendants
// included. Run: npm run bench:bridge.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  childrenWithSessions,
  connectOnce,
  defined,
  inRounds,
  median,
  openSession,
  percentile,
  range,
  sumThroughput,
  type Session,
  type Target,
  type Throughput,
} from "./lib/measure";
import { type ErasResult, measureEras, printEras } from "./lib/eras";
import { bridgeLogProblems, childrenOf, errorText, freePort, repoRoot, rssText, sleep, startManaged, waitForTcp, type Managed } from "./lib/procs";

const TOKEN = "T";
const node = process.execPath;
const everything = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const bin = (name: string) => realpathSync(join(repoRoot, "node_modules/.bin", name));
const CONNECTS = 5;
const SEQ = { warmup: 500, rounds: 10, perRound: 50 };
const LOAD = { warmup: 10_000, rounds: 10, perRound: 400, inFlight: 50 };

interface Row {
  name: string;
  command?: string;
  failed?: string;
  connectMs?: number | "failed";
  p50?: number | "failed";
  p99?: number | "failed";
  /** Summed over the rounds. */
  throughput?: Throughput | "failed";
  /** Per round (index = round): p50 of that round's sequential calls, calls/s. */
  p50s: Array<number | undefined>;
  rates: Array<number | undefined>;
  rssIdle?: { own: number | undefined; text: string };
  rssAfter?: string;
  children?: { direct: number; all: number } | "failed";
  notes: string[];
}

interface Path {
  name: string;
  /** Starts the process (if any, handed to `own` at once so a failed start still stops it); returns where clients connect. */
  start(own: (m: Managed) => Managed): Promise<{ target: Target }>;
}

/** A started path and its raw measurements. */
interface Live {
  row: Row;
  target: Target;
  managed?: Managed;
  session?: Session;
  /** Phases that failed on this path: it sits out their later rounds. */
  broken: Set<string>;
  connects: number[];
  samples: number[];
  runs: Throughput[];
}

const active = new Set<Managed>();
const open = new Set<Session>();
/** Set once shutting down (finally, SIGINT, SIGTERM): no new work is started after that. */
let stopping: Promise<void> | undefined;

const paths: Path[] = [
  { name: "stdio direct (floor)", start: async () => ({ target: { kind: "stdio", command: node, args: [everything, "stdio"] } }) },
  {
    name: "our bridge",
    start: async (own) => {
      const dir = mkdtempSync(join(tmpdir(), "bench-bridge-"));
      try {
        const config = join(dir, "mcp.json");
        writeFileSync(config, JSON.stringify({ servers: { everything: { type: "stdio", command: node, args: [everything, "stdio"] } } }, null, 2));
        const managed = own(
          startManaged("bridge", node, [
            join(repoRoot, "local-bridge/bin/mcp-local-bridge.mjs"),
            "--config",
            config,
            "--port",
            "0",
            "--token",
            TOKEN,
            "--no-watch",
          ]),
        );
        const match = await managed.waitFor(/listening on (http:\/\/\S+)/, 60_000);
        return { target: { kind: "http", url: `${match[1]}/servers/everything/mcp`, headers: { authorization: `Bearer ${TOKEN}` } } };
      } finally {
        rmSync(dir, { recursive: true, force: true }); // read once at start (--no-watch)
      }
    },
  },
  {
    name: "supergateway --stateful",
    start: async (own) => {
      const port = await freePort();
      const managed = own(
        startManaged("supergateway", node, [
          bin("supergateway"),
          "--stdio",
          `${node} ${everything} stdio`,
          "--outputTransport",
          "streamableHttp",
          "--stateful",
          "--port",
          String(port),
        ]),
      );
      await managed.waitFor(/Listening on port/, 30_000);
      await waitForTcp(port, 10_000);
      return { target: { kind: "http", url: `http://127.0.0.1:${port}/mcp`, headers: {} } };
    },
  },
  {
    name: "mcp-proxy",
    start: async (own) => {
      const port = await freePort();
      const managed = own(
        startManaged("mcp-proxy", node, [
          bin("mcp-proxy"),
          "--host",
          "127.0.0.1",
          "--port",
          String(port),
          "--server",
          "stream",
          "--",
          node,
          everything,
          "stdio",
        ]),
      );
      await managed.waitFor(/starting server on port/, 30_000);
      await waitForTcp(port, 10_000);
      return { target: { kind: "http", url: `http://127.0.0.1:${port}/mcp`, headers: {} } };
    },
  },
];

const erasOnly = process.argv.includes("--eras");

async function startAll(rows: Row[], lives: Live[]): Promise<void> {
  for (const path of erasOnly ? paths.filter((p) => p.name === "our bridge") : paths) {
    if (stopping) break;
    process.stderr.write(`bench: starting ${path.name}\n`);
    const row: Row = { name: path.name, p50s: [], rates: [], notes: [] };
    rows.push(row);
    let managed: Managed | undefined;
    const own = (m: Managed) => {
      managed = m;
      active.add(m);
      row.command = m.commandLine;
      return m;
    };
    try {
      const { target } = await path.start(own);
      lives.push({ row, target, managed, broken: new Set(), connects: [], samples: [], runs: [] });
    } catch (error) {
      row.failed = errorText(error);
    }
  }
}

/** Rounds of `step` over the live paths not broken in `phase`; a failure breaks the path for the phase. */
function rounds(lives: Live[], phase: string, label: string, n: number, budgetMs: number, step: (l: Live, round: number) => Promise<void>): Promise<void> {
  const failed = (l: Live, message: string) => {
    l.broken.add(phase);
    l.row.notes.push(message);
  };
  return inRounds({ items: lives, rounds: n, label, budgetMs, step, failed, skip: (l) => stopping !== undefined || l.broken.has(phase) });
}

async function measure(lives: Live[]): Promise<void> {
  await sleep(1_000);
  for (const l of lives) if (l.managed) l.row.rssIdle = rssText(l.managed.pid);
  for (const l of lives) {
    if (stopping) break;
    try {
      l.session = await openSession(l.target, LOAD.inFlight);
      open.add(l.session);
    } catch (error) {
      l.row.notes.push(`session for calls failed: ${errorText(error)}`);
      l.broken.add("sequential").add("throughput");
    }
  }
  await rounds(lives, "connect", "connect round", CONNECTS, 30_000, async (l) => void l.connects.push(await connectOnce(l.target)));
  await sleep(500); // let per-session children of the last connect go
  const session = (l: Live) => l.session ?? Promise.reject(new Error("no session"));
  const seq = async (l: Live, n: number) => (await session(l)).sequential(n, 25_000);
  const load = async (l: Live, n: number) => (await session(l)).load.run(n, LOAD.inFlight, 20_000);
  await rounds(lives, "sequential", "warm-up, sequential", 1, 30_000, async (l) => void (await seq(l, SEQ.warmup)));
  await rounds(lives, "throughput", "warm-up, in flight", 1, 30_000, async (l) => {
    const t = await load(l, LOAD.warmup);
    if (t.errors > 0) l.row.notes.push(`warm-up errors: ${t.reasons.join("; ")}`);
  });
  await rounds(lives, "sequential", "latency round", SEQ.rounds, 30_000, async (l, round) => {
    const samples = await seq(l, SEQ.perRound);
    l.samples.push(...samples);
    l.row.p50s[round] = median(samples);
  });
  await rounds(lives, "throughput", "throughput round", LOAD.rounds, 30_000, async (l, round) => {
    const t = await load(l, LOAD.perRound);
    l.runs.push(t);
    l.row.rates[round] = t.callsPerSecond;
  });
  for (const l of lives) {
    const { row, broken } = l;
    const sorted = [...l.samples].sort((a, b) => a - b);
    row.connectMs = broken.has("connect") ? "failed" : median(l.connects);
    row.p50 = broken.has("sequential") ? "failed" : percentile(sorted, 50);
    row.p99 = broken.has("sequential") ? "failed" : percentile(sorted, 99);
    row.throughput = broken.has("throughput") ? "failed" : sumThroughput(l.runs);
    if (row.throughput !== "failed" && row.throughput.errors > 0) row.notes.push(`throughput errors: ${row.throughput.reasons.join("; ")}`);
    if (l.session && open.delete(l.session)) await l.session.close();
  }
  for (const l of lives) {
    const pid = l.managed?.pid;
    if (!pid || stopping) continue;
    process.stderr.write(`bench: 20 sessions on ${l.row.name}\n`);
    const { children, note } = await childrenWithSessions(l.target, pid, 20);
    l.row.children = children;
    if (note) l.row.notes.push(note);
  }
  await sleep(1_000);
  for (const { row, managed: m } of lives) {
    if (!m) continue;
    row.rssAfter = rssText(m.pid).text;
    row.notes.push(`children 1 s after the 20 sessions were DELETEd: ${childrenOf(m.pid).length}`);
    if (m.name === "bridge") row.notes.push(...bridgeLogProblems(m.output()));
  }
}

const fmt = (v: number | "failed" | undefined, digits = 1) => (v === undefined ? "-" : v === "failed" ? "failed" : v.toFixed(digits));

function printTable(rows: Row[]): void {
  console.log(
    `| path | connect ms (median of ${CONNECTS}) | seq p50 ms | seq p99 ms | calls/s, ${LOAD.inFlight} in flight: total (rounds min–max) | errors | RSS idle MB | RSS after MB | children after 20 sessions |`,
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    if (r.failed) {
      console.log(`| ${r.name} | failed: ${r.failed} | - | - | - | - | - | - | - |`);
      continue;
    }
    const t = r.throughput;
    const cps = t === undefined ? "-" : t === "failed" ? "failed" : `${t.callsPerSecond.toFixed(0)} (${range(defined(r.rates), 0)})`;
    const errors = t === undefined || t === "failed" ? "-" : String(t.errors);
    const c = r.children;
    const children = c === undefined ? "-" : c === "failed" ? "failed" : c.all === c.direct ? String(c.direct) : `${c.direct} (${c.all} descendants)`;
    console.log(
      `| ${r.name} | ${fmt(r.connectMs)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${cps} | ${errors} | ${r.rssIdle?.text ?? "-"} | ${r.rssAfter ?? "-"} | ${children} |`,
    );
  }
}

function printGoals(rows: Row[]): void {
  const bridge = rows.find((r) => r.name === "our bridge");
  const peers = rows.filter((r) => r.name !== "our bridge" && r.name !== "stdio direct (floor)" && !r.failed);
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const cpsOf = (r: Row) => (r.throughput && r.throughput !== "failed" ? r.throughput.callsPerSecond : undefined);
  const lower = (a: number, b: number) => a < b;
  const higher = (a: number, b: number) => a > b;
  const best = (values: Array<[string, number | undefined]>, better: (a: number, b: number) => boolean) =>
    values.reduce<[string, number] | undefined>((acc, [n, v]) => (v === undefined || (acc && !better(v, acc[1])) ? acc : [n, v]), undefined);
  const verdict = (ok: boolean | undefined) => (ok === undefined ? "n/a" : ok ? "MET" : "NOT MET");
  /** Bridge / better peer within each round: both measured seconds apart, never minutes. */
  const perRound = (b: Row, of: (r: Row) => Array<number | undefined>, better: (a: number, b: number) => boolean) =>
    defined(
      of(b).map((v, i) =>
        v === undefined
          ? undefined
          : v /
            (best(
              peers.map((p) => [p.name, num(of(p)[i])]),
              better,
            )?.[1] ?? Number.NaN),
      ),
    );
  const rounds = (ratios: number[]) =>
    ratios.length === 0 ? "no round" : `median ${median(ratios).toFixed(2)}, ${range(ratios, 2)} over ${ratios.length} rounds`;
  console.log("\nBridge vs the better peer:");
  if (!bridge || bridge.failed) {
    console.log(`- bridge failed: ${bridge?.failed ?? "not run"}: every goal NOT MET`);
    return;
  }
  const p50 = num(bridge.p50);
  const bestP50 = best(
    peers.map((r) => [r.name, num(r.p50)]),
    lower,
  );
  const p50Ratio = p50 !== undefined && bestP50 ? p50 / bestP50[1] : undefined;
  const p50Text = `bridge ${fmt(bridge.p50, 2)} ms vs ${bestP50 ? `${bestP50[0]} ${bestP50[1].toFixed(2)} ms` : "no peer"}`;
  console.log(
    `- p50 ratio: ${p50Ratio?.toFixed(3) ?? "n/a"} (pooled ${SEQ.rounds * SEQ.perRound} calls: ${p50Text}; per round: ${rounds(perRound(bridge, (r) => r.p50s, lower))}; goal ≤ 0.5): ${verdict(p50Ratio === undefined ? undefined : p50Ratio <= 0.5)}`,
  );
  const cps = cpsOf(bridge);
  const bestCps = best(
    peers.map((r) => [r.name, cpsOf(r)]),
    higher,
  );
  const ratios = perRound(bridge, (r) => r.rates, higher);
  const cpsRatio = ratios.length > 0 ? median(ratios) : undefined;
  const totals = `totals: bridge ${cps?.toFixed(0) ?? "n/a"} calls/s vs ${bestCps ? `${bestCps[0]} ${bestCps[1].toFixed(0)}` : "no peer"} = ${cps !== undefined && bestCps ? (cps / bestCps[1]).toFixed(2) : "n/a"}`;
  console.log(
    `- throughput ratio: ${cpsRatio?.toFixed(3) ?? "n/a"} (per round: ${rounds(ratios)}; ${totals}; goal ≥ 2): ${verdict(cpsRatio === undefined ? undefined : cpsRatio >= 2)}`,
  );
  const rss = bridge.rssIdle?.own;
  console.log(`- idle RSS: ${rss?.toFixed(1) ?? "n/a"} MB (goal < 50 MB): ${verdict(rss === undefined ? undefined : rss < 50)}`);
  const c = bridge.children;
  const direct = c && c !== "failed" ? c.direct : undefined;
  console.log(`- children after 20 sessions: ${direct ?? "n/a"} (goal: exactly 1): ${verdict(direct === undefined ? undefined : direct === 1)}`);
}

/** Clients first (the floor's server is the stdio client's child), then every started process; once. */
const stopEverything = (lives: Live[]) => (stopping ??= stopAll(lives));

async function stopAll(lives: Live[]): Promise<void> {
  await Promise.allSettled([...open].map((c) => c.close()));
  open.clear();
  for (const l of lives) if (l.managed && active.delete(l.managed)) l.row.notes.push(...(await l.managed.stop()));
  // A start that failed halfway, or one that spawned while this ran.
  while (active.size > 0) {
    const left = [...active];
    active.clear();
    await Promise.allSettled(left.map((m) => m.stop()));
  }
}

async function main(): Promise<void> {
  const began = Date.now();
  const loadBefore = loadavg()[0]?.toFixed(2);
  const rows: Row[] = [];
  const lives: Live[] = [];
  let eras: ErasResult | undefined;
  try {
    await startAll(rows, lives);
    if (!erasOnly) await measure(lives);
    const bridge = lives.find((l) => l.row.name === "our bridge");
    if (bridge?.target.kind === "http" && !stopping) {
      if (erasOnly && bridge.managed) {
        await sleep(1_000);
        bridge.row.notes.push(`idle RSS before any call: ${rssText(bridge.managed.pid).text} MB`);
      }
      eras = await measureEras(bridge.target.url, bridge.target.headers, { command: node, args: [everything, "stdio"] }).catch((error: unknown) => {
        bridge.row.notes.push(`eras failed: ${errorText(error)}`);
        return undefined;
      });
      await sleep(1_000);
      if (bridge.managed) bridge.row.notes.push(`RSS 1 s after both revisions were served: ${rssText(bridge.managed.pid).text} MB`);
    }
  } finally {
    await stopEverything(lives);
  }
  console.log(
    `\n## MCP bridge benchmark (server-everything echo; node ${process.version}; ${((Date.now() - began) / 1000).toFixed(0)} s; load avg ${loadBefore} → ${loadavg()[0]?.toFixed(2)})\n`,
  );
  if (!erasOnly) {
    printTable(rows);
    printGoals(rows);
  }
  if (eras) printEras(eras);
  console.log("\nCommand lines:");
  for (const r of rows) if (r.command) console.log(`- ${r.name}: ${r.command}`);
  const notes = rows.flatMap((r) => r.notes.map((n) => `- ${r.name}: ${n}`));
  if (notes.length > 0) console.log(`\nNotes:\n${notes.join("\n")}`);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stopEverything([]).finally(() => process.exit(130)));
}

main().catch(async (error: unknown) => {
  console.error("bench failed:", error);
  await stopEverything([]);
  process.exitCode = 1;
});
