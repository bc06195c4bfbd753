#!/usr/bin/env node
// `npm run coverage`: every test of both vitest projects with istanbul coverage
// (vitest.config.ts), plus what the bridge's own processes ran (scripts/lib/child-coverage.mjs),
// reported per file, in istanbul's summary, for each of the two source roots, and as HTML in
// coverage/. Exits with vitest's status: the figures are printed even when a test failed,
// and the run still fails. Arguments go to vitest (a project, a file).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import libCoverage from "istanbul-lib-coverage";
import libReport from "istanbul-lib-report";
import reports from "istanbul-reports";
import { addChildCoverage } from "./lib/child-coverage.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const reportDir = join(root, "coverage");
const roots = ["src", "local-bridge/src"];
const bundles = ["cli", "connect", "config-loader"].map((name) => join(root, "local-bridge", "dist", `${name}.mjs`));

const chromium = spawnSync(process.execPath, [join(root, "scripts", "ensure-chromium.mjs")], { stdio: "inherit" });
if (chromium.status !== 0) process.exit(chromium.status ?? 1);

// Every Node process of the run writes its V8 coverage here at exit; only the bridge's are read.
const dumps = mkdtempSync(join(tmpdir(), "edgehost-v8-coverage-"));
// Ctrl+C reaches vitest too (same process group): this script waits for it, then cleans up.
process.on("SIGINT", () => undefined);
let status = 1;
try {
  const vitest = spawnSync(
    process.execPath,
    [join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--coverage", "--coverage.reporter=json", ...process.argv.slice(2)],
    { cwd: root, stdio: "inherit", env: { ...process.env, NODE_V8_COVERAGE: dumps } },
  );
  status = vitest.status ?? 1;
  const final = join(reportDir, "coverage-final.json");
  if (existsSync(final)) report(final);
} finally {
  rmSync(dumps, { recursive: true, force: true });
}
process.exit(status);

function report(final) {
  const map = libCoverage.createCoverageMap(JSON.parse(readFileSync(final, "utf8")));
  const processes = addChildCoverage(map, dumps, bundles.filter(existsSync));
  writeFileSync(final, JSON.stringify(map.toJSON()));
  const context = libReport.createContext({ dir: reportDir, coverageMap: map, defaultSummarizer: "nested" });
  for (const name of ["text", "text-summary", "html", "json-summary"]) reports.create(name).execute(context);

  const sums = Object.fromEntries(roots.map((r) => [r, { lines: [0, 0], branches: [0, 0] }]));
  for (const file of map.files()) {
    const path = relative(root, file).split(sep).join("/");
    const owner = roots.find((r) => path.startsWith(`${r}/`));
    if (!owner) continue;
    const summary = map.fileCoverageFor(file).toSummary();
    for (const kind of ["lines", "branches"]) {
      sums[owner][kind][0] += summary[kind].covered;
      sums[owner][kind][1] += summary[kind].total;
    }
  }
  const total = map.getCoverageSummary();
  // Rounded down, as istanbul's own summary rounds.
  const pct = ([covered, total]) => (total === 0 ? "-" : `${(Math.floor((10_000 * covered) / total) / 100).toFixed(2)} % (${covered}/${total})`);
  console.log(`\nBy source root, with ${processes} bridge processes' own coverage (docs/developing.md#coverage)`);
  for (const [name, { lines, branches }] of Object.entries(sums)) console.log(`  ${name.padEnd(17)} lines ${pct(lines).padEnd(24)} branches ${pct(branches)}`);
  console.log(
    `  ${"total".padEnd(17)} lines ${pct([total.lines.covered, total.lines.total]).padEnd(24)} branches ${pct([total.branches.covered, total.branches.total])}`,
  );
  console.log(`  HTML report: ${join("coverage", "index.html")}`);
}
