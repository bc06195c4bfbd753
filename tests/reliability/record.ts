// The reliability tests' side of RELIABILITY.md: a fault or attack test reports its row
// (tests/fixtures/reliability-rows.ts) from what it returns or the first failure, and
// wall-clock limits are checked only when `npm run reliability` collects the rows.
import { expect, type TestContext } from "vitest";
import { recordRow } from "../fixtures/reliability-rows";

/**
 * A wall-clock limit is a figure of `npm run reliability` (RELIABILITY_OUT set), checked there;
 * under `npm test` a machine busy with other work must not fail a test on speed, so the test
 * asserts the event (which error, what came first) and this check is skipped.
 */
export function expectWithin(ms: number, limitMs: number, what: string): void {
  if (process.env.RELIABILITY_OUT) expect.soft(ms, `${what}: ${ms} ms, limit ${limitMs} ms`).toBeLessThan(limitMs);
}

/** An error's first line, short enough for a table cell. */
function errorLine(error: unknown): string {
  return (
    String(typeof error === "object" && error && "message" in error ? (error as { message: unknown }).message : error)
      .split("\n")[0]
      ?.slice(0, 160) ?? ""
  );
}

/** A fault test that reports its row: the figure it returns, or the first failure (thrown or soft). */
export function faultCase(scenario: string, done: string, run: () => Promise<string>): (context: TestContext) => Promise<void> {
  const failed = (error: unknown) => `FAILED: ${errorLine(error)}`;
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
      recordRow({ suite: "Security", scenario, done, figure: `GOT THROUGH or failed: ${errorLine(error)}`, pass: false });
      throw error;
    }
    const soft = task.result?.errors ?? [];
    attackTally.tried += outcome.tried;
    if (soft.length > 0) attackTally.through += 1;
    recordRow({ suite: "Security", scenario, done, figure: outcome.figure, pass: soft.length === 0 });
  };
}
