// Bad input, fast subset (npm test): ~1,000 seeded WebSocket frames and ~300 HTTP
// requests against the real stack, with the checks of tests/fixtures/fuzz/run.ts
// (bench/reliability/fuzz.ts runs 10,000+ frames). Every check is an assertion of the documented
// behaviour; a failure lists the inputs that broke it (replay with the same seed).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFuzz, SCENARIOS, type FuzzReport } from "../fixtures/fuzz/run";
import { recordRow } from "../fixtures/reliability-rows";
import { startStack, type Stack } from "../fixtures/stack";

const SEED = 20_260_101;
let stack: Stack | undefined;
let report: FuzzReport;

beforeAll(async () => {
  // Valid `message` frames start turns: the rate limit must not be what answers them.
  stack = await startStack({ vars: { RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "10000" } });
  report = await runFuzz(stack, { frames: 1_000, workerHttp: 200, bridgeHttp: 100, seed: SEED });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

describe("bad input: seeded fuzz of the session socket, the HTTP API and the bridge", () => {
  for (const scenario of SCENARIOS) {
    it(scenario, () => {
      const check = report.checks.find((c) => c.scenario === scenario);
      expect(check, `no check named "${scenario}"`).toBeDefined();
      if (!check) return;
      recordRow({ suite: "Bad input", scenario: `fast subset: ${scenario}`, done: check.done, figure: check.figure, pass: check.pass });
      expect(check.problems.slice(0, 25), `${check.figure} (seed ${SEED})`).toEqual([]);
      expect(check.pass).toBe(true);
    });
  }
});
