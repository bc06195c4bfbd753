// Our local bridge against the stdio floor and two peer stdio→Streamable HTTP
// gateways (supergateway --stateful, mcp-proxy), all fronting the same server
// (@modelcontextprotocol/server-everything, tool `echo`). Paths run one after the
// other so they never share the 2 cores. Per path:
//   1. connect+initialize of a fresh SDK client, median of 5 (each session DELETEd after);
//   2. 500 sequential SDK `echo` calls after 50 warm-up calls: p50/p99;
//   3. throughput: 2,000 raw JSON-RPC `tools/call` POSTs, 50 in flight, over an undici
//      keep-alive Pool (200 unmeasured warm-up calls first). All calls reuse ONE session
//      initialized by the SDK: peers that spawn a child per session would otherwise be
//      measured on process spawns, not on proxying. The stdio floor uses the SDK client
//      with 50 calls in flight instead. A call counts only if its reply has `result`;
//   4. VmRSS of the bridge/peer process (its own, children excluded; the whole tree is
//      shown in brackets), idle 1 s after start and after the run;
//   5. direct children of the bridge/peer pid while 20 SDK sessions are open (each
//      initialized and one echo call). Processes are started as `node <script>`, so
//      the pid measured is the node process itself, never a shell wrapper.
// Every process started here is stopped in a finally block, descendants included.
// Run: npm run bench:bridge (or npx tsx bench/bridge.ts).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { connect, connectTimes, manySessions, rawThroughput, sdkThroughput, sequential, type Connected, type Target, type Throughput } from "./lib/measure";
import { childrenOf, descendantsOf, errorText, freePort, repoRoot, rssMb, sleep, startManaged, treeRssMb, waitForTcp, withTimeout, type Managed } from "./lib/procs";

const TOKEN = "T";
const node = process.execPath;
const everything = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const bin = (name: string) => realpathSync(join(repoRoot, "node_modules/.bin", name));

interface Row {
  name: string;
  command?: string;
  failed?: string;
  connectMs?: number | "failed";
  p50?: number | "failed";
  p99?: number | "failed";
  throughput?: Throughput | "failed";
  rssIdle?: string;
  rssAfter?: string;
  rssIdleMb?: number;
  children?: { direct: number; all: number } | "failed";
  notes: string[];
}

interface Path {
  name: string;
  /** Starts the process (if any, handed to `own` at once so a failed start still stops it); returns where clients connect. */
  start(own: (m: Managed) => Managed): Promise<{ target: Target }>;
}

const active = new Set<Managed>();

const paths: Path[] = [
  { name: "stdio direct (floor)", start: async () => ({ target: { kind: "stdio", command: node, args: [everything, "stdio"] } }) },
  {
    name: "our bridge",
    start: async (own) => {
      const dir = mkdtempSync(join(tmpdir(), "bench-bridge-"));
      const config = join(dir, "mcp.json");
      writeFileSync(config, JSON.stringify({ servers: { everything: { type: "stdio", command: node, args: [everything, "stdio"] } } }, null, 2));
      const managed = own(startManaged("bridge", node, [join(repoRoot, "local-bridge/bin/mcp-local-bridge.mjs"), "--config", config, "--port", "0", "--token", TOKEN, "--no-watch"]));
      const stop = managed.stop;
      managed.stop = async () => {
        const forced = await stop();
        rmSync(dir, { recursive: true, force: true });
        return forced;
      };
      const match = await managed.waitFor(/listening on (http:\/\/\S+)/, 60_000);
      return { target: { kind: "http", url: `${match[1]}/servers/everything/mcp`, headers: { authorization: `Bearer ${TOKEN}` } } };
    },
  },
  {
    name: "supergateway --stateful",
    start: async (own) => {
      const port = await freePort();
      const managed = own(startManaged("supergateway", node, [bin("supergateway"), "--stdio", `${node} ${everything} stdio`, "--outputTransport", "streamableHttp", "--stateful", "--port", String(port)]));
      await managed.waitFor(/Listening on port/, 30_000);
      await waitForTcp(port, 10_000);
      return { target: { kind: "http", url: `http://127.0.0.1:${port}/mcp`, headers: {} } };
    },
  },
  {
    name: "mcp-proxy",
    start: async (own) => {
      const port = await freePort();
      const managed = own(startManaged("mcp-proxy", node, [bin("mcp-proxy"), "--host", "127.0.0.1", "--port", String(port), "--server", "stream", "--", node, everything, "stdio"]));
      await managed.waitFor(/starting server on port/, 30_000);
      await waitForTcp(port, 10_000);
      return { target: { kind: "http", url: `http://127.0.0.1:${port}/mcp`, headers: {} } };
    },
  },
];

async function phase<T>(row: Row, label: string, budgetMs: number, run: () => Promise<T>): Promise<T | "failed"> {
  try {
    return await withTimeout(run(), budgetMs, label);
  } catch (error) {
    row.notes.push(`${label} failed: ${errorText(error)}`);
    return "failed";
  }
}

const mb = (pid: number) => {
  const own = rssMb(pid);
  const tree = treeRssMb(pid);
  return { own, text: own === undefined ? "gone" : `${own.toFixed(1)} (tree ${(tree ?? own).toFixed(0)})` };
};

async function runPath(path: Path): Promise<Row> {
  const row: Row = { name: path.name, notes: [] };
  let managed: Managed | undefined;
  let main: Connected | undefined;
  try {
    const own = (m: Managed) => {
      managed = m;
      active.add(m);
      row.command = m.commandLine;
      return m;
    };
    let target: Target;
    try {
      ({ target } = await path.start(own));
    } catch (error) {
      row.failed = errorText(error);
      return row;
    }
    const pid = (managed as Managed | undefined)?.pid;
    if (pid) {
      await sleep(1_000);
      const idle = mb(pid);
      row.rssIdle = idle.text;
      row.rssIdleMb = idle.own;
    }
    row.connectMs = await phase(row, "connect", 60_000, () => connectTimes(target, 5));
    const opened = await phase(row, "session for calls", 25_000, () => connect(target));
    if (opened === "failed") {
      row.p50 = row.p99 = row.throughput = "failed";
    } else {
      main = opened;
      const seq = await phase(row, "sequential", 70_000, () => sequential(opened.client, 50, 500, 60_000));
      row.p50 = seq === "failed" ? seq : seq.p50;
      row.p99 = seq === "failed" ? seq : seq.p99;
      row.throughput = await phase(row, "throughput", 100_000, async () => {
        if (target.kind === "stdio") {
          await sdkThroughput(opened.client, 200, 50, 20_000);
          return sdkThroughput(opened.client, 2_000, 50, 60_000);
        }
        if (!opened.sessionId) throw new Error("server gave no mcp-session-id");
        const session = { url: target.url, headers: target.headers, sessionId: opened.sessionId, protocolVersion: opened.protocolVersion ?? LATEST_PROTOCOL_VERSION };
        await rawThroughput(session, 200, 50, 20_000, 900_000);
        return rawThroughput(session, 2_000, 50, 60_000, 100_000);
      });
      if (row.throughput !== "failed" && row.throughput.reasons.length > 0) row.notes.push(`throughput errors: ${row.throughput.reasons.join("; ")}`);
      await main.close();
      main = undefined;
    }
    if (pid) {
      const sessions = await phase(row, "20 sessions", 90_000, () =>
        manySessions(target, 20, () => ({ direct: childrenOf(pid).length, all: descendantsOf(pid).length })),
      );
      if (sessions !== "failed") {
        row.children = sessions.value;
        if (sessions.failed.length > 0) row.notes.push(`${sessions.failed.length}/20 sessions failed: ${sessions.failed[0]}`);
      } else row.children = "failed";
      await sleep(1_000);
      row.rssAfter = mb(pid).text;
      const left = childrenOf(pid).length;
      row.notes.push(`children 1 s after the 20 sessions were DELETEd: ${left}`);
    }
    if (managed?.name === "bridge") {
      const lines = managed.output().split("\n");
      const bad = lines.filter((l) => /"level":"(warn|error)"/.test(l));
      if (bad.length > 0) row.notes.push(`bridge logged ${bad.length} warn/error lines, e.g. ${bad[0]?.slice(0, 200)}`);
      const childErrors = lines.filter((l) => /"msg":"server stderr"/.test(l) && /error|fail/i.test(l));
      if (childErrors.length > 0) row.notes.push(`server stderr via the bridge: ${childErrors.length} error-like lines, e.g. ${childErrors[0]?.slice(0, 220)}`);
    }
  } finally {
    if (main) await main.close();
    if (managed) {
      const forced = await managed.stop();
      active.delete(managed);
      row.notes.push(...forced);
    }
  }
  return row;
}

const fmt = (v: number | "failed" | undefined, digits = 1) => (v === undefined ? "-" : v === "failed" ? "failed" : v.toFixed(digits));

function printTable(rows: Row[]): void {
  console.log("| path | connect ms | seq p50 ms | seq p99 ms | calls/s (50 in flight) | errors | RSS idle MB | RSS after MB | children after 20 sessions |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    if (r.failed) {
      console.log(`| ${r.name} | failed: ${r.failed} | - | - | - | - | - | - | - |`);
      continue;
    }
    const t = r.throughput;
    const cps = t === undefined ? "-" : t === "failed" ? "failed" : t.callsPerSecond.toFixed(0);
    const errors = t === undefined || t === "failed" ? "-" : String(t.errors);
    const c = r.children;
    const children = c === undefined ? "-" : c === "failed" ? "failed" : c.all === c.direct ? String(c.direct) : `${c.direct} (${c.all} descendants)`;
    console.log(`| ${r.name} | ${fmt(r.connectMs)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${cps} | ${errors} | ${r.rssIdle ?? "-"} | ${r.rssAfter ?? "-"} | ${children} |`);
  }
}

function printGoals(rows: Row[]): void {
  const bridge = rows.find((r) => r.name === "our bridge");
  const peers = rows.filter((r) => r.name !== "our bridge" && r.name !== "stdio direct (floor)" && !r.failed);
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const cpsOf = (r: Row) => (r.throughput && r.throughput !== "failed" ? r.throughput.callsPerSecond : undefined);
  const best = <T>(values: Array<[string, T | undefined]>, better: (a: T, b: T) => boolean) =>
    values.reduce<[string, T] | undefined>((acc, [n, v]) => (v === undefined || (acc && !better(v, acc[1])) ? acc : [n, v]), undefined);
  const verdict = (ok: boolean | undefined) => (ok === undefined ? "n/a" : ok ? "MET" : "NOT MET");
  console.log("\nBridge vs the better peer:");
  if (!bridge || bridge.failed) {
    console.log(`- bridge failed: ${bridge?.failed ?? "not run"}: every goal NOT MET`);
    return;
  }
  const p50 = num(bridge.p50);
  const bestP50 = best(peers.map((r) => [r.name, num(r.p50)]), (a: number, b: number) => a < b);
  const p50Ratio = p50 !== undefined && bestP50 ? p50 / bestP50[1] : undefined;
  console.log(`- p50 ratio: ${p50Ratio?.toFixed(2) ?? "n/a"} (bridge ${fmt(bridge.p50, 2)} ms vs ${bestP50 ? `${bestP50[0]} ${bestP50[1].toFixed(2)} ms` : "no peer"}; goal ≤ 0.5): ${verdict(p50Ratio === undefined ? undefined : p50Ratio <= 0.5)}`);
  const cps = cpsOf(bridge);
  const bestCps = best(peers.map((r) => [r.name, cpsOf(r)]), (a: number, b: number) => a > b);
  const cpsRatio = cps !== undefined && bestCps ? cps / bestCps[1] : undefined;
  console.log(`- throughput ratio: ${cpsRatio?.toFixed(2) ?? "n/a"} (bridge ${cps?.toFixed(0) ?? "n/a"} calls/s vs ${bestCps ? `${bestCps[0]} ${bestCps[1].toFixed(0)}` : "no peer"}; goal ≥ 2): ${verdict(cpsRatio === undefined ? undefined : cpsRatio >= 2)}`);
  const rss = bridge.rssIdleMb;
  console.log(`- idle RSS: ${rss?.toFixed(1) ?? "n/a"} MB (goal < 60 MB): ${verdict(rss === undefined ? undefined : rss < 60)}`);
  const c = bridge.children;
  const direct = c && c !== "failed" ? c.direct : undefined;
  console.log(`- children after 20 sessions: ${direct ?? "n/a"} (goal: exactly 1): ${verdict(direct === undefined ? undefined : direct === 1)}`);
}

async function main(): Promise<void> {
  const began = Date.now();
  const loadBefore = loadavg()[0]?.toFixed(2);
  const rows: Row[] = [];
  for (const path of paths) {
    process.stderr.write(`bench: ${path.name}...\n`);
    rows.push(await runPath(path));
  }
  console.log(`\n## MCP bridge benchmark (server-everything echo; node ${process.version}; ${((Date.now() - began) / 1000).toFixed(0)} s; load avg ${loadBefore} → ${loadavg()[0]?.toFixed(2)})\n`);
  printTable(rows);
  printGoals(rows);
  console.log("\nCommand lines:");
  for (const r of rows) if (r.command) console.log(`- ${r.name}: ${r.command}`);
  const notes = rows.flatMap((r) => r.notes.map((n) => `- ${r.name}: ${n}`));
  if (notes.length > 0) console.log(`\nNotes:\n${notes.join("\n")}`);
}

// Ctrl-C / SIGTERM: still stop whatever is running.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void Promise.all([...active].map((m) => m.stop())).finally(() => process.exit(130));
  });
}

main().catch(async (error: unknown) => {
  console.error("bench failed:", error);
  await Promise.all([...active].map((m) => m.stop()));
  process.exitCode = 1;
});
