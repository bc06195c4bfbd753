// `npm run reliability`'s bad-input fuzzer at full size: the run of
// tests/fixtures/fuzz/run.ts with 10,000+ frames, a table of outcomes, and the rows for
// RELIABILITY.md. Run: npx tsx bench/reliability/fuzz.ts [--frames 10000] [--http 3000] [--seed N]
import { runFuzz } from "../../tests/fixtures/fuzz/run";
import { recordRow } from "../../tests/fixtures/reliability-rows";
import { startStack } from "../../tests/fixtures/stack";

async function main(): Promise<void> {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    const v = i > 0 ? Number(process.argv[i + 1]) : NaN;
    return Number.isInteger(v) && v >= 0 ? v : fallback;
  };
  const frames = Math.max(arg("frames", 10_000), 1);
  const http = arg("http", 3_000);
  const seed = arg("seed", 1);
  const log = (line: string) => process.stderr.write(`fuzz: ${line}\n`);
  const stack = await startStack({ vars: { RATE_LIMIT_BURST: "1000", RATE_LIMIT_PER_MINUTE: "10000" } });
  let failed = true;
  try {
    const report = await runFuzz(stack, { frames, workerHttp: Math.round((http * 2) / 3), bridgeHttp: http - Math.round((http * 2) / 3), seed, log });
    const table = (title: string, m: Record<string, number>) =>
      [
        `${title}:`,
        ...Object.entries(m)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `  ${String(v).padStart(7)}  ${k}`),
      ].join("\n");
    console.log(table("WebSocket outcomes", report.wsOutcomes));
    console.log(table("HTTP outcomes", report.httpOutcomes));
    console.log(table("WebSocket answers not as the protocol says", report.wsMismatches));
    console.log(table("HTTP answers not as documented", report.httpMismatches));
    console.log(`time: ${(report.ms / 1000).toFixed(1)} s for ${frames} frames + ${http} requests`);
    for (const c of report.checks) {
      console.log(`${c.pass ? "PASS" : "FAIL"}  ${c.scenario}: ${c.figure}`);
      for (const p of c.problems.slice(0, 12)) console.log(`        ${p}`);
      if (c.problems.length > 12) console.log(`        … ${c.problems.length - 12} more`);
      recordRow({ suite: "Bad input", scenario: c.scenario, done: c.done, figure: c.figure, pass: c.pass });
    }
    failed = report.checks.some((c) => !c.pass);
  } catch (error) {
    log(`worker log tail:\n${stack.workerLog().slice(-3000)}`);
    throw error;
  } finally {
    await stack.stop();
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
