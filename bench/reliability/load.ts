// Load part of the reliability suite: does the whole stack stay correct and flat in
// memory under many concurrent chat sessions? Starts the fake Gemini (auto mode:
// each turn = model call → filesystem `list_directory` through the bridge → model
// call), the real local bridge (@modelcontextprotocol/server-filesystem over stdio)
// and `wrangler dev` (bench/reliability/load-stack.ts), then runs ROUNDS rounds of
// SESSIONS fresh WebSocket sessions opened at once, each doing TURNS one-tool-call
// turns in sequence, a round cut at ROUND_MS (bench/reliability/load-round.ts).
// Measured per round: turns completed, errors (any `error` frame, a tool error,
// turn_end ≠ complete, a socket closed unexpectedly, a timeout), p50/p99 turn time
// (message sent → turn_end), wall time; RSS of the workerd process(es) under
// wrangler dev and of the bridge, the bridge's child processes and open MCP sessions,
// sampled before, every 2 s during, and for 10 s after the round (sockets closed).
// Verdict (bench/reliability/load-report.ts): every turn completed with 0 errors;
// round 3 vs round 1 growth ≤ 1.15, growth = the smaller of the "after" ratio (min RSS
// over 10 s once sockets closed) and the peak ratio (load-report.ts says why), for the
// workerd runtime process (Worker + Durable Objects; wrangler's own dev proxy workerd
// is reported, not judged) and for the bridge;
// exactly one bridge child per configured server at every sample (same pid
// throughout); last round's p50 ≤ first round's × 1.5. Rows go to
// tests/fixtures/reliability-rows.ts. Run: npm run reliability:load
// (LOAD_SESSIONS, LOAD_TURNS, LOAD_ROUNDS, LOAD_ROUND_MS override the plan.)
import { loadavg } from "node:os";
import { bridgeLogProblems, errorText } from "../lib/procs";
import type { TimedSession } from "../lib/timed-session";
import { takeSample } from "./load-sample";
import { runRound, type RoundResult } from "./load-round";
import { roundTable, summaryTable, verdict } from "./load-report";
import { LoadStack, type Running } from "./load-stack";

const envInt = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
};
const SESSIONS = envInt("LOAD_SESSIONS", 200);
const TURNS = envInt("LOAD_TURNS", 10);
const ROUNDS = envInt("LOAD_ROUNDS", 3);
const ROUND_MS = envInt("LOAD_ROUND_MS", 100_000); // 3 × 100 s + start-up + settling stays under ~6 min
const TURN_TIMEOUT_MS = 30_000;

const started = Date.now();
const log = (text: string) => process.stderr.write(`load: ${text}\n`);
const stack = new LoadStack(log);
const clients = new Set<TimedSession>();
let cleaning: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of clients) c.close();
    await stack.stop();
  })();
  return cleaning;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nload: ${signal}, stopping everything\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.once("exit", () => stack.killNow());

function observations(run: Running, mark: number): string[] {
  const out: string[] = [];
  const since = run.wrangler.since(mark);
  const lines = since.split("\n").filter((l) => /error|warn|✘|▲|exception|uncaught/i.test(l));
  out.push(
    `wrangler dev output during the rounds: ${lines.length} error/warn lines${lines.length ? `, e.g.:\n    ${[...new Set(lines.map((l) => l.trim().slice(0, 220)))].slice(0, 5).join("\n    ")}` : ""}`,
  );
  if (/Reloading|Detected changes/i.test(since)) out.push("wrangler dev RELOADED during the run (a source file changed): sockets may have been cut");
  out.push(...bridgeLogProblems(run.bridge.stderr()));
  return out;
}

async function main(): Promise<boolean> {
  log(`plan: ${ROUNDS} rounds × ${SESSIONS} sessions × ${TURNS} turns, a round cut at ${ROUND_MS / 1000} s`);
  const run = await stack.start();
  const mark = run.wrangler.seen();
  const sample = () => takeSample(run.wrangler.pid, run.bridge);
  const rounds: RoundResult[] = [];
  for (let i = 1; i <= ROUNDS; i++) {
    log(`round ${i}/${ROUNDS} (${((Date.now() - started) / 1000).toFixed(0)} s in)`);
    const r = await runRound({
      index: i,
      url: run.workerUrl,
      sessions: SESSIONS,
      turns: TURNS,
      roundMs: ROUND_MS,
      turnTimeoutMs: TURN_TIMEOUT_MS,
      sample,
      log,
      clients,
    });
    rounds.push(r);
    log(
      `round ${i} done: ${r.completed}/${r.planned} turns, ${r.errors} errors in ${(r.wallMs / 1000).toFixed(1)} s; workerd ${r.after.workerdMb.toFixed(0)} MB, bridge ${r.after.bridgeMb.toFixed(0)} MB after`,
    );
    console.log(roundTable(r).join("\n"));
  }
  const v = verdict(rounds, run.servers, { sessions: SESSIONS, turns: TURNS, rounds: ROUNDS });
  const notes = [
    ...observations(run, mark),
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; total ${((Date.now() - started) / 1000).toFixed(0)} s`,
  ];
  console.log(["### Summary", "", ...summaryTable(rounds), "", ...v.lines, "", "Observations:", ...notes.map((n) => `  - ${n}`)].join("\n"));
  return v.pass;
}

try {
  const pass = await main();
  process.exitCode = pass ? 0 : 1;
} catch (error) {
  console.error(`load bench failed: ${errorText(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
process.exit(process.exitCode ?? 0);
