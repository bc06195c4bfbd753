// Rows and the printed report of bench/turn.ts: per path the turns run, the ok
// turns' latencies and milestones, errors by reason and notes; a markdown table,
// the goal lines, and medians of where the time of a turn goes.
import { percentile } from "./measure";
import type { TurnResult } from "./timed-session";

export interface Row {
  path: string;
  turns: number;
  samples: number[];
  /** Milestones of each ok turn (ms after it started), `end` included. */
  marks: Record<string, number>[];
  errors: number;
  reasons: Map<string, number>;
  notes: string[];
}

export const row = (path: string): Row => ({ path, turns: 0, samples: [], marks: [], errors: 0, reasons: new Map(), notes: [] });

export function count(r: Row, result: TurnResult): void {
  r.turns++;
  if (result.error === undefined) {
    r.samples.push(result.ms);
    r.marks.push({ ...result.marks, end: result.ms });
    return;
  }
  r.errors++;
  const reason = result.error.replace(/\d+/g, "N").slice(0, 140);
  r.reasons.set(reason, (r.reasons.get(reason) ?? 0) + 1);
}

export const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
export const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "-");
export const p = (values: number[], q: number) => percentile(sorted(values), q);

/** "label median" for each segment [label, from mark ("" = start), to mark] over a row's ok turns. */
export function breakdown(r: Row, segments: [string, string, string][]): string {
  return segments
    .map(([label, from, to]) => {
      const spans = r.marks.flatMap((m) => {
        const a = from === "" ? 0 : m[from];
        const b = m[to];
        return a === undefined || b === undefined ? [] : [b - a];
      });
      return `${label} ${fmt(p(spans, 50))}`;
    })
    .join(", ");
}

export function table(rows: Row[], sizeRows: Row[]): string[] {
  const out = ["| path | turns | p50 ms | p99 ms | errors | notes |", "|---|---:|---:|---:|---:|---|"];
  for (const r of [...rows, ...sizeRows]) {
    const reasons = [...r.reasons].slice(0, 3).map(([why, n]) => `${n}× ${why}`);
    const notes = [...r.notes, ...reasons].join("; ").replace(/\|/g, "\\|");
    if (sizeRows.includes(r)) out.push(`| ${r.path} | - | - | - | - | ${notes} |`);
    else out.push(`| ${r.path} | ${r.turns} | ${fmt(p(r.samples, 50))} | ${fmt(p(r.samples, 99))} | ${r.errors} | ${notes} |`);
  }
  return out;
}
