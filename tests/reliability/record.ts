// Rows for RELIABILITY.md. Every reliability test and bench reports what it did and
// the figure it saw; `npm run reliability` sets RELIABILITY_OUT and renders the
// table from the rows. Under `npm test` (no RELIABILITY_OUT) recording is a no-op.
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { expect, type TestContext } from "vitest";

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

/**
 * A wall-clock limit is a figure of `npm run reliability` (RELIABILITY_OUT set), checked there;
 * under `npm test` a machine busy with other work must not fail a test on speed, so the test
 * asserts the event (which error, what came first) and this check is skipped.
 */
export function expectWithin(ms: number, limitMs: number, what: string): void {
  if (process.env.RELIABILITY_OUT) expect.soft(ms, `${what}: ${ms} ms, limit ${limitMs} ms`).toBeLessThan(limitMs);
}

/** A fault test that reports its row: the figure it returns, or the first failure (thrown or soft). */
export function faultCase(scenario: string, done: string, run: () => Promise<string>): (context: TestContext) => Promise<void> {
  const failed = (error: unknown) => `FAILED: ${String(typeof error === "object" && error && "message" in error ? (error as { message: unknown }).message : error).split("\n")[0]?.slice(0, 160)}`;
  return async ({ task }) => {
    let figure: string;
    try {
      figure = await run();
    } catch (error) {
      recordRow({ suite: "Faults", scenario, done, figure: failed(task.result?.errors?.[0] ?? error), pass: false });
      throw error;
    }
    const soft = task.result?.errors ?? [];
    recordRow({ suite: "Faults", scenario, done, figure: soft.length > 0 ? `${figure}; ${failed(soft[0])}` : figure, pass: soft.length === 0 });
  };
}

/** Attacks tried so far in this process, and how many got through (a failed attack test counts as through). */
export const attackTally = { tried: 0, through: 0 };

/**
 * A security test that plays an outsider: `run` makes the attempts (asserting each is
 * refused) and returns how many it made and what it saw; the row and the tally follow.
 */
export function attackCase(scenario: string, done: string, run: () => Promise<{ tried: number; figure: string }>): (context: TestContext) => Promise<void> {
  return async ({ task }) => {
    let outcome: { tried: number; figure: string };
    try {
      outcome = await run();
    } catch (error) {
      attackTally.tried += 1;
      attackTally.through += 1;
      const message = String(typeof error === "object" && error && "message" in error ? (error as { message: unknown }).message : error).split("\n")[0]?.slice(0, 160);
      recordRow({ suite: "Security", scenario, done, figure: `GOT THROUGH or failed: ${message}`, pass: false });
      throw error;
    }
    const soft = task.result?.errors ?? [];
    attackTally.tried += outcome.tried;
    if (soft.length > 0) attackTally.through += 1;
    recordRow({ suite: "Security", scenario, done, figure: outcome.figure, pass: soft.length === 0 });
  };
}
