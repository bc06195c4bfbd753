// Rows for RELIABILITY.md. Every reliability test and bench reports what it did and
// the figure it saw; `npm run reliability` sets RELIABILITY_OUT and renders the
// table from the rows. Under `npm test` (no RELIABILITY_OUT) recording is a no-op.
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";

export interface ReliabilityRow {
  /** Load, Faults, Bad input or Security. */
  suite: "Load" | "Faults" | "Bad input" | "Security";
  scenario: string;
  done: string;
  figure: string;
  pass: boolean;
}

export function recordRow(row: ReliabilityRow): void {
  const out = process.env.RELIABILITY_OUT;
  if (!out) return;
  mkdirSync(dirname(out), { recursive: true });
  appendFileSync(out, `${JSON.stringify({ ...row, at: new Date().toISOString() })}\n`);
}
