// `npm run conformance:bridge`: every server scenario the suite lists (what `--suite all` runs, one at a time) against the
// conformance fixture (fixture-server.ts, a 2025-only SDK v1 server) run natively over
// its own Streamable HTTP, and the same fixture as a stdio child behind the local bridge,
// for the latest release and the newest 0.2.0 pre-release, side by side. Not part of
// `npm test`: the suite and a Node 22 runtime come from the npm registry the first time.
//   CONFORMANCE_VERSIONS=0.1.16,0.2.0-alpha.12  pin the two suite versions
//   CONFORMANCE_SCENARIO=server-stateless       only these scenarios (comma-separated)
//   CONFORMANCE_JOBS=2                          scenarios run at once
//   CONFORMANCE_BRIDGE_FLAGS="--sse-stream"     flags for the bridge (default: --sse-stream,
//                                               the standalone GET stream the suite's SSE
//                                               scenarios open; the Worker runs without it)
//   CONFORMANCE_VERBOSE=1                       print the suite's own output
import { formatFailures, formatMatrix, type Column } from "./matrix";
import { startBridgedFixture, startNativeFixture } from "./processes";
import { bundle, listScenarios, node22, ROOT, serverColumn, suiteCli, suiteVersions } from "./suite";

async function main(): Promise<void> {
  const versions = suiteVersions();
  console.log(`suite: ${versions.map((v) => `${v.label} ${v.version}`).join(", ")}; runtime: Node 22 from npm (${node22().slice(ROOT.length + 1)})`);
  const fixture = await bundle("fixture-server.ts");
  const flags = (process.env.CONFORMANCE_BRIDGE_FLAGS ?? "--sse-stream").split(/\s+/).filter(Boolean);
  const columns: Column[] = [];
  for (const version of versions) {
    const cli = suiteCli(version.version);
    const scenarios = process.env.CONFORMANCE_SCENARIO?.split(",") ?? (await listScenarios(cli, "server"));
    const short = version.label === "release" ? "rel" : "pre";
    // A fresh fixture and bridge per version: one run's sessions and children do not carry into the next.
    for (const [kind, start] of [
      ["native", () => startNativeFixture(fixture)],
      ["bridge", () => startBridgedFixture(fixture, flags)],
    ] as const) {
      const target = await start();
      try {
        columns.push(await serverColumn(cli, scenarios, target.url, `${short} ${kind}`));
      } finally {
        await target.stop();
      }
    }
  }
  console.log(`\n${formatMatrix(columns)}\n\nFailing checks:\n${formatFailures(columns)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
