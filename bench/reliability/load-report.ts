// The printed report of bench/reliability/load.ts: a table per round, a summary
// table across rounds, the verdict lines with the rules used, and the rows recorded
// for RELIABILITY.md (tests/fixtures/reliability-rows.ts).
import { recordRow } from "../../tests/fixtures/reliability-rows";
import { fmt, p } from "../lib/turn-report";
import { mb, roleMb, type Sample } from "./load-sample";
import type { RoundResult } from "./load-round";

/**
 * Memory rule, for the workerd runtime process (the Worker and its Durable Objects)
 * and for the bridge: growth = min(last round's "after" / round 1's "after", last
 * round's peak / round 1's peak) ≤ GROWTH, where "after" = the minimum over the 10 s
 * once a round's sockets are closed and peak = the maximum sampled during the round
 * and those 10 s. A leak raises both the level left after a round and the
 * high-water mark; where a GC happens to fall (the bridge's RSS saw-tooths by about
 * 20 MB on a 66 MB base) moves only one of them. wrangler dev's own proxy workerd
 * (dev only, never deployed) is reported alongside, not judged.
 */
export const GROWTH = 1.15;
/** Latency rule: last round's p50 ≤ first round's p50 × LATENCY_DRIFT (no slowdown from round to round). */
export const LATENCY_DRIFT = 1.5;

const maxOf = (samples: Sample[], pick: (s: Sample) => number) => Math.max(...samples.map(pick));
/** A round's peak: the maximum over its samples during the round and in the settle window. */
const peakMb = (r: RoundResult, pick: (s: Sample) => number) => maxOf([...r.during, ...r.settle, r.after], pick);
const all = (r: RoundResult) => [r.before, ...r.during, ...r.settle];
/** A round's memory "after": the minimum over its settle window. */
export const afterMb = (r: RoundResult, pick: (s: Sample) => number) => Math.min(...(r.settle.length ? r.settle : [r.after]).map(pick));
const runtime = (s: Sample) => roleMb(s, "runtime");
const proxy = (s: Sample) => roleMb(s, "proxy");
const total = (s: Sample) => s.workerdMb;
const bridgeMb = (s: Sample) => s.bridgeMb;
const memText = (r: RoundResult, pick: (s: Sample) => number) => `${mb(pick(r.before))} → ${mb(afterMb(r, pick))}`;

export function childCounts(r: RoundResult): { min: number; max: number; pids: Set<number>; samples: number } {
  const counts = all(r).map((s) => s.children.length);
  return { min: Math.min(...counts), max: Math.max(...counts), pids: new Set(all(r).flatMap((s) => s.children.map(([pid]) => pid))), samples: counts.length };
}

export function roundTable(r: RoundResult): string[] {
  const kids = childCounts(r);
  const reasons = [...r.reasons]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([why, n]) => `${n}× ${why}`);
  const rows: [string, string][] = [
    ["turns completed / planned", `${r.completed} / ${r.planned}${r.notRun ? ` (${r.notRun} not run${r.deadlineHit ? ": round deadline" : ""})` : ""}`],
    ["errors", `${r.errors}${reasons.length ? ` — ${reasons.join("; ")}` : ""}`],
    ["turn ms p50 / p99 / max", `${fmt(p(r.ms, 50))} / ${fmt(p(r.ms, 99))} / ${fmt(r.ms.length ? Math.max(...r.ms) : NaN)}`],
    [
      "wall s (all sockets open after)",
      `${(r.wallMs / 1000).toFixed(1)} (${(r.openMs / 1000).toFixed(1)}); ${(r.completed / (r.wallMs / 1000)).toFixed(1)} turns/s`,
    ],
    ["workerd runtime (Worker + DOs) RSS MB before → after (peak)", `${memText(r, runtime)} (${mb(maxOf(all(r), runtime))})`],
    ["workerd wrangler-proxy RSS MB before → after (peak)", `${memText(r, proxy)} (${mb(maxOf(all(r), proxy))})`],
    [
      "workerd total RSS MB before → after (peak)",
      `${memText(r, total)} (${mb(maxOf(all(r), total))}); pids ${[...new Set(all(r).flatMap((s) => s.workerd.map((w) => `${w.pid} ${w.role}`)))].join(", ")}`,
    ],
    ["bridge RSS MB before → after (peak)", `${memText(r, bridgeMb)} (${mb(maxOf(all(r), bridgeMb))})`],
    ["bridge children min–max over samples", `${kids.min}–${kids.max} over ${kids.samples} samples; pids seen ${[...kids.pids].join(",")}`],
    [
      "bridge MCP sessions before → peak → after",
      `${r.before.bridgeSessions ?? "?"} → ${Math.max(...all(r).map((s) => s.bridgeSessions ?? 0))} → ${r.after.bridgeSessions ?? "?"}`,
    ],
  ];
  const notes = [...new Set(r.notes)];
  if (notes.length) rows.push(["notes", `${notes.length} — ${notes.slice(0, 2).join("; ")}`]);
  return [`### Round ${r.index}`, "", "| measure | value |", "|---|---|", ...rows.map(([k, v]) => `| ${k} | ${v.replace(/\|/g, "\\|")} |`), ""];
}

/** One line per round: the figures the verdict compares. */
export function summaryTable(rounds: RoundResult[]): string[] {
  const out = [
    "| round | done / planned | errors | p50 ms | p99 ms | wall s | workerd runtime MB | workerd proxy MB | workerd total MB | bridge MB | bridge children min–max | bridge sessions after |",
    "|---:|---:|---:|---:|---:|---:|---|---|---|---|---|---:|",
  ];
  for (const r of rounds) {
    const k = childCounts(r);
    out.push(
      `| ${r.index} | ${r.completed} / ${r.planned} | ${r.errors} | ${fmt(p(r.ms, 50))} | ${fmt(p(r.ms, 99))} | ${(r.wallMs / 1000).toFixed(1)} | ${memText(r, runtime)} | ${memText(r, proxy)} | ${memText(r, total)} | ${memText(r, bridgeMb)} | ${k.min}–${k.max} | ${r.after.bridgeSessions ?? "?"} |`,
    );
  }
  return out;
}

export interface Verdict {
  lines: string[];
  pass: boolean;
}

export function verdict(rounds: RoundResult[], servers: string[], plan: { sessions: number; turns: number; rounds: number }): Verdict {
  const lines: string[] = [];
  const first = rounds[0];
  const last = rounds.at(-1);
  const planned = plan.sessions * plan.turns * plan.rounds;
  const completed = rounds.reduce((s, r) => s + r.completed, 0);
  const errors = rounds.reduce((s, r) => s + r.errors, 0);
  const notRun = rounds.reduce((s, r) => s + r.notRun, 0) + (plan.rounds - rounds.length) * plan.sessions * plan.turns;
  const allMs = rounds.flatMap((r) => r.ms);
  const scenario = `${plan.rounds} rounds × ${plan.sessions} WebSocket sessions × ${plan.turns} one-tool-call turns`;

  const turnsPass = rounds.length === plan.rounds && errors === 0 && completed === planned;
  lines.push(`turns: ${completed}/${planned} completed, ${errors} errors, ${notRun} not run (goal: all completed, 0 errors): ${turnsPass ? "MET" : "NOT MET"}`);
  recordRow({
    suite: "Load",
    scenario: `${scenario}: turns and errors`,
    done: `${completed}/${planned} turns completed`,
    figure: `${errors} errors, ${notRun} not run`,
    pass: turnsPass,
  });

  const p50s = rounds.map((r) => p(r.ms, 50));
  const latPass = !!first && !!last && first.ms.length > 0 && last.ms.length > 0 && p(last.ms, 50) <= p(first.ms, 50) * LATENCY_DRIFT;
  lines.push(
    `latency: p50 ${fmt(p(allMs, 50))} ms, p99 ${fmt(p(allMs, 99))} ms over all rounds; per-round p50 ${p50s.map(fmt).join(" / ")} (rule: last p50 ≤ first p50 × ${LATENCY_DRIFT}): ${latPass ? "MET" : "NOT MET"}`,
  );
  recordRow({
    suite: "Load",
    scenario: `${scenario}: turn time p50/p99`,
    done: `${allMs.length} ok turns timed, message sent → turn_end`,
    figure: `p50 ${fmt(p(allMs, 50))} ms, p99 ${fmt(p(allMs, 99))} ms; per-round p50 ${p50s.map(fmt).join("/")} ms`,
    pass: latPass,
  });

  // Round 1 is the warm-up (the first Durable Objects, JIT, caches): a leak shows as growth after it,
  // so the last round is compared with round 2 when there are three or more.
  const base = rounds.length >= 3 ? rounds[1] : first;
  const baseName = rounds.length >= 3 ? "round 2" : "round 1";
  const ratioOf = (pick: (s: Sample) => number, of = afterMb) => (base && last ? of(last, pick) / of(base, pick) : NaN);
  const rt = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : "-");
  const trend = (name: string, pick: (s: Sample) => number, extra: string) => {
    const [byAfter, byPeak] = [ratioOf(pick), ratioOf(pick, peakMb)];
    const growth = Math.min(byAfter, byPeak);
    const ok = rounds.length === plan.rounds && Number.isFinite(growth) && growth <= GROWTH;
    const text = `start ${mb(first ? pick(first.before) : NaN)} MB; after each round ${rounds.map((r) => mb(afterMb(r, pick))).join(" → ")} MB (×${rt(byAfter)}), peak ${rounds.map((r) => mb(peakMb(r, pick))).join(" → ")} MB (×${rt(byPeak)})${extra}`;
    lines.push(
      `${name} RSS: ${text} (rule: min(after ratio, peak ratio) round ${plan.rounds} vs ${baseName} ≤ ${GROWTH}; after = min over the 10 s once sockets closed): ${ok ? "MET" : "NOT MET"}`,
    );
    recordRow({
      suite: "Load",
      scenario: `${scenario}: ${name} memory trend`,
      done: "RSS sampled from /proc before, every 2 s during and for 10 s after each round",
      figure: text,
      pass: ok,
    });
    return ok;
  };
  const perRole = (role: (s: Sample) => number) => rounds.map((r) => mb(afterMb(r, role))).join(" → ");
  const whole = `; not judged: all workerd under wrangler dev ${perRole(total)} MB (×${rt(ratioOf(total))}), of which wrangler's dev-only proxy ${perRole(proxy)} MB (×${rt(ratioOf(proxy))})`;
  const workerPass = trend("workerd runtime (Worker + DOs)", runtime, whole);
  const sessions = rounds.map((r) => r.after.bridgeSessions ?? "?").join(" → ");
  const bridgePass = trend("bridge", bridgeMb, `; open MCP sessions after each round ${sessions}`);

  const kids = rounds.map(childCounts);
  const pids = new Set(kids.flatMap((k) => [...k.pids]));
  const samples = kids.reduce((s, k) => s + k.samples, 0);
  const kidsPass = kids.length > 0 && kids.every((k) => k.min === servers.length && k.max === servers.length) && pids.size === servers.length;
  const kidText = `${servers.length} server(s) configured; children per sample min ${Math.min(...kids.map((k) => k.min))}, max ${Math.max(...kids.map((k) => k.max))} over ${samples} samples; ${pids.size} distinct child pid(s)`;
  lines.push(`bridge children: ${kidText} (goal: exactly one per server at every sample, never replaced): ${kidsPass ? "MET" : "NOT MET"}`);
  recordRow({
    suite: "Load",
    scenario: `${scenario}: bridge child processes`,
    done: `bridge children counted from /proc at every sample`,
    figure: kidText,
    pass: kidsPass,
  });

  const pass = turnsPass && latPass && workerPass && bridgePass && kidsPass;
  lines.push(`VERDICT: ${pass ? "PASS" : "FAIL"}`);
  return { lines, pass };
}
