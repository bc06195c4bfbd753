// `npm run conformance`: every client scenario the suite lists (what `--suite all` runs, one at a time) with McpHost as
// the client under test, and the SDK's own v2 Client (auto negotiation) beside it as
// the yardstick, for the latest release and the newest 0.2.0 pre-release. Prints the
// matrix scenario × {release, pre-release} × {McpHost, SDK v2}. Needs the npm registry
// the first time (the suite and a Node 22 runtime go to .cache/conformance/), so it is
// not part of `npm test`.
//   CONFORMANCE_VERSIONS=0.1.16,0.2.0-alpha.12  pin the two suite versions
//   CONFORMANCE_SCENARIO=auth/scope-step-up     only these scenarios (comma-separated)
//   CONFORMANCE_JOBS=2                          scenarios run at once
//   CONFORMANCE_CLIENTS=host                    only McpHost (or sdk)
//   CONFORMANCE_VERBOSE=1                       print the suite's own output
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatFailures, formatMatrix, passes, type Column } from "./matrix";
import { bundle, listScenarios, node22, readResults, ROOT, runScenarios, suiteCli, suiteVersions } from "./suite";

const CLIENTS = [
  { id: "host", title: "McpHost" },
  { id: "sdk", title: "SDK v2" },
] as const;

async function main(): Promise<void> {
  const versions = suiteVersions();
  console.log(`suite: ${versions.map((v) => `${v.label} ${v.version}`).join(", ")}; runtime: Node 22 from npm (${node22().slice(ROOT.length + 1)})`);
  const only = process.env.CONFORMANCE_CLIENTS?.split(",");
  const clients = CLIENTS.filter((c) => !only || only.includes(c.id));
  // Bundled now, from src/ as it is: the newest McpHost is the one measured.
  const runner = await bundle("client.ts");
  const columns: Column[] = [];
  for (const version of versions) {
    const cli = suiteCli(version.version);
    const scenarios = process.env.CONFORMANCE_SCENARIO?.split(",") ?? (await listScenarios(cli, "client"));
    for (const client of clients) {
      const out = mkdtempSync(join(tmpdir(), "conformance-client-"));
      const started = Date.now();
      const command = `${process.execPath} ${runner} --client ${client.id}`;
      const args = (scenario: string) => ["client", "--command", command, "--scenario", scenario, "--timeout", "60000", "-o", out];
      await runScenarios(cli, scenarios, args, `${version.version} ${client.title}`, out);
      const results = readResults(out);
      rmSync(out, { recursive: true, force: true });
      console.log(
        `${version.label} ${version.version} × ${client.title}: ${results.filter((r) => passes(r)).length}/${results.length} scenarios pass (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
      columns.push({ title: `${version.label === "release" ? "rel" : "pre"} ${client.title}`, results });
    }
  }
  console.log(`\n${formatMatrix(columns)}\n\nFailing checks:\n${formatFailures(columns)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
