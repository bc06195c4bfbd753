#!/usr/bin/env node
// `npm run coverage`: every test of both vitest projects with istanbul coverage
// (vitest.config.ts), then line and branch figures for each of the two source roots,
// which istanbul's own summary adds into one. Exits with vitest's status: the figure
// is printed even when a test failed, and the run still fails.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const roots = ["src", "local-bridge/src"];

const chromium = spawnSync(process.execPath, [join(root, "scripts", "ensure-chromium.mjs")], { stdio: "inherit" });
if (chromium.status !== 0) process.exit(chromium.status ?? 1);
const vitest = spawnSync(process.execPath, [join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--coverage", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});

const summaryFile = join(root, "coverage", "coverage-summary.json");
if (existsSync(summaryFile)) {
  /** @type {Record<string, { lines: { total: number; covered: number }; branches: { total: number; covered: number } }>} */
  const summary = JSON.parse(readFileSync(summaryFile, "utf8"));
  const sums = Object.fromEntries(roots.map((r) => [r, { lines: [0, 0], branches: [0, 0] }]));
  for (const [file, figures] of Object.entries(summary)) {
    if (file === "total") continue;
    const path = relative(root, file).split(sep).join("/");
    const owner = roots.find((r) => path.startsWith(`${r}/`));
    if (!owner) continue;
    for (const kind of ["lines", "branches"]) {
      sums[owner][kind][0] += figures[kind].covered;
      sums[owner][kind][1] += figures[kind].total;
    }
  }
  // Rounded down, as istanbul's own summary rounds.
  const pct = ([covered, total]) => (total === 0 ? "-" : `${(Math.floor((10_000 * covered) / total) / 100).toFixed(2)} % (${covered}/${total})`);
  console.log("\nBy source root (in-process code only: docs/developing.md#coverage)");
  for (const [name, { lines, branches }] of Object.entries(sums)) console.log(`  ${name.padEnd(17)} lines ${pct(lines).padEnd(24)} branches ${pct(branches)}`);
  const total = summary.total;
  console.log(
    `  ${"total".padEnd(17)} lines ${pct([total.lines.covered, total.lines.total]).padEnd(24)} branches ${pct([total.branches.covered, total.branches.total])}`,
  );
  console.log(`  HTML report: ${join("coverage", "index.html")}`);
}
process.exit(vitest.status ?? 1);
