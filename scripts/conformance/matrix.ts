// The compact matrix both conformance scripts print: one row per scenario, one column
// per run (suite version × implementation), each cell `passed/total` checks with a mark
// when any check failed (`w2`: two WARNING checks besides); then the failing check ids.
import type { ScenarioResult } from "./suite";

export interface Column {
  title: string;
  results: ScenarioResult[];
}

function cell(result: ScenarioResult | undefined): string {
  if (!result) return "-";
  const total = result.passed + result.failed;
  return `${result.failed ? "✗" : "✓"} ${result.passed}/${total}${result.warnings ? ` w${result.warnings}` : ""}`;
}

/** A scenario passes when it ran and none of its checks failed. */
export function passes(result: ScenarioResult | undefined): boolean {
  return result !== undefined && result.failed === 0;
}

export function formatMatrix(columns: Column[]): string {
  const scenarios = [...new Set(columns.flatMap((c) => c.results.map((r) => r.scenario)))].sort();
  const width = Math.max(8, ...scenarios.map((s) => s.length));
  const cellWidth = Math.max(10, ...columns.map((c) => c.title.length));
  const lines = [`${"scenario".padEnd(width)}  ${columns.map((c) => c.title.padEnd(cellWidth)).join("  ")}`];
  for (const scenario of scenarios) {
    const cells = columns.map((c) => cell(c.results.find((r) => r.scenario === scenario)).padEnd(cellWidth));
    lines.push(`${scenario.padEnd(width)}  ${cells.join("  ")}`);
  }
  const totals = columns.map((c) => {
    const ran = c.results.length;
    return `${c.results.filter((r) => passes(r)).length}/${ran} pass`.padEnd(cellWidth);
  });
  lines.push(`${"scenarios passed".padEnd(width)}  ${totals.join("  ")}`);
  return lines.join("\n");
}

/** Failing check ids per column and scenario (first few), for the notes under the matrix. */
export function formatFailures(columns: Column[]): string {
  const lines: string[] = [];
  for (const column of columns) {
    const failing = column.results.filter((r) => r.failed > 0);
    if (!failing.length) continue;
    lines.push(`${column.title}:`);
    for (const r of failing) lines.push(`  ${r.scenario}: ${[...new Set(r.failing)].slice(0, 4).join(", ")}`);
  }
  return lines.join("\n");
}
