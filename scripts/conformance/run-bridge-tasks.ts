// `npx tsx scripts/conformance/run-bridge-tasks.ts`: the pre-release suite's Tasks-extension scenarios
// (`tasks-*`, SEP-2663) against the local bridge in front of a 2025 stdio child that runs
// tool calls as tasks (tests/fixtures/task-server.mjs, on the v1 SDK's experimental tasks:
// the tools those scenarios call). The conformance fixture (fixture-server.ts) has no task
// tools, so `conformance:bridge` cannot show these; and no server of ours speaks the
// extension natively, so there is no native column: the bridge's translation is the thing
// measured. Not part of `npm test`: the suite and a Node 22 runtime come from npm once.
//   CONFORMANCE_VERSIONS=0.1.16,0.2.0-alpha.12  pin the versions (the second one runs)
//   CONFORMANCE_SCENARIO=tasks-lifecycle        only these scenarios (comma-separated)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatFailures, formatMatrix, passes } from "./matrix";
import { startBridgedFixture } from "./processes";
import { listScenarios, node22, readResults, ROOT, runScenarios, suiteCli, suiteVersions } from "./suite";

async function main(): Promise<void> {
  const pre = suiteVersions().find((v) => v.label === "pre-release");
  if (!pre) throw new Error("no pre-release version of the suite");
  console.log(`suite: ${pre.version}; runtime: Node 22 from npm (${node22().slice(ROOT.length + 1)})`);
  const cli = suiteCli(pre.version);
  const scenarios = process.env.CONFORMANCE_SCENARIO?.split(",") ?? (await listScenarios(cli, "server")).filter((s) => s.startsWith("tasks-"));
  const target = await startBridgedFixture(join(ROOT, "tests/fixtures/task-server.mjs"), ["--sse-stream"]);
  const out = mkdtempSync(join(tmpdir(), "conformance-tasks-"));
  try {
    await runScenarios(cli, scenarios, (scenario) => ["server", "--url", target.url, "--scenario", scenario, "-o", out], "bridge", out);
    const column = { title: "pre bridge (task-server)", results: readResults(out) };
    console.log(`${column.title}: ${column.results.filter((r) => passes(r)).length}/${column.results.length} scenarios pass`);
    console.log(`\n${formatMatrix([column])}\n\nFailing checks:\n${formatFailures([column])}`);
  } finally {
    await target.stop();
    rmSync(out, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
