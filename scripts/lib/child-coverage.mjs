// What the bridge's own processes ran, added to the coverage vitest measured in its test
// processes. Tests run the bridge as a CLI (local-bridge/bin, which runs the bundles in
// local-bridge/dist/), so vitest's istanbul instrumentation never sees that code. Node
// writes each process's V8 coverage at exit when NODE_V8_COVERAGE names a folder. Here
// istanbul's own map of each bundled source (local-bridge/src/ and the src/shared/ modules
// the bundles hold) gets the counts V8 recorded at the same code, found through the
// bundle's source map, so both measures count the same statements, branches and functions:
//
// - a statement: the count of the innermost V8 range holding its first character;
// - a branch of `? :`, `&&`/`||`/`??` or `switch`: likewise, at the branch's own code;
// - a branch of an `if` (istanbul places both at the `if`): its first statement's count, and
//   for a missing `else` the `if`'s count less the `then` branch's;
// - a function: the highest count of its statements.
//
// Not carried over: default parameter values (V8 keeps no count for them), statements the
// bundler left out of the bundle (constants it inlined, a final `return undefined`), and
// processes that are killed (SIGKILL) or crash, which write nothing.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { allGeneratedPositionsFor, GREATEST_LOWER_BOUND, LEAST_UPPER_BOUND, TraceMap } from "@jridgewell/trace-mapping";

/**
 * @typedef {{ line: number; column: number }} Position
 * @typedef {{ start: Position; end: Position }} Range
 * @typedef {{
 *   statementMap: Record<string, Range>;
 *   fnMap: Record<string, { loc: Range }>;
 *   branchMap: Record<string, { type: string; loc: Range; locations: Range[] }>;
 *   s: Record<string, number>;
 *   f: Record<string, number>;
 *   b: Record<string, number[]>;
 * }} FileData
 * @typedef {{ startOffset: number; endOffset: number; count: number }} V8Range
 * @typedef {{ data: FileData; points: { kind: "s" | "b"; id: string; index: number; offset: number }[]; childS: Map<string, number>; childB: Map<string, number[]> }} Located
 */

/** Branch kinds whose locations are the branch's own code, where V8 keeps a count. */
const AT_OWN_CODE = new Set(["cond-expr", "binary-expr", "switch"]);

const before = (a, b) => a.line < b.line || (a.line === b.line && a.column <= b.column);
// istanbul leaves a column out (null) where a range runs to the end of its line.
const edges = ({ start, end }) => ({ start: { line: start.line, column: start.column ?? 0 }, end: { line: end.line, column: end.column ?? Infinity } });
const inside = (inner, outer) => {
  const [i, o] = [edges(inner), edges(outer)];
  return before(o.start, i.start) && before(i.end, o.end);
};
const known = (range) => typeof range?.start?.line === "number";

/** Offsets in `code` where each line starts. */
function lineStarts(code) {
  const starts = [0];
  for (let i = 0; i < code.length; i++) if (code.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** A bundle's URL (as V8 names it) and, for each of its sources that `map` holds, where each statement and branch is in the bundle. */
function locate(bundle, map) {
  const starts = lineStarts(readFileSync(bundle, "utf8"));
  const mapFile = `${bundle}.map`;
  const raw = JSON.parse(readFileSync(mapFile, "utf8"));
  const trace = new TraceMap(raw);
  const files = new Set(map.files());
  /** A character offset in the bundle, as V8 counts them; -1 where the bundler left the code out. */
  const offsetOf = (source, { line, column }) => {
    // istanbul's lines are 1-based and its columns 0-based, as in source maps. One place in the
    // source may map to several in the bundle (an expression's start and its member access):
    // the first is where its code begins.
    let all = allGeneratedPositionsFor(trace, { source, line, column, bias: LEAST_UPPER_BOUND });
    if (all.length === 0) all = allGeneratedPositionsFor(trace, { source, line, column, bias: GREATEST_LOWER_BOUND });
    const offsets = all.filter((at) => at.line !== null).map((at) => (starts[at.line - 1] ?? 0) + at.column);
    return offsets.length === 0 ? -1 : Math.min(...offsets);
  };
  /** @type {Located[]} */
  const located = [];
  for (const source of raw.sources) {
    const path = resolve(dirname(mapFile), raw.sourceRoot ?? "", source);
    if (!files.has(path)) continue;
    /** @type {FileData} */
    const data = map.fileCoverageFor(path).data;
    const points = Object.entries(data.statementMap).map(([id, range]) => ({
      kind: /** @type {const} */ ("s"),
      id,
      index: 0,
      offset: offsetOf(source, range.start),
    }));
    for (const [id, branch] of Object.entries(data.branchMap)) {
      if (!AT_OWN_CODE.has(branch.type)) continue;
      branch.locations.forEach((range, index) => {
        if (known(range)) points.push({ kind: "b", id, index, offset: offsetOf(source, range.start) });
      });
    }
    located.push({ data, points: points.filter((p) => p.offset >= 0), childS: new Map(), childB: new Map() });
  }
  return { url: pathToFileURL(bundle).href, located };
}

/** Each offset's count: that of the innermost V8 range holding it (ranges nest; a block's count overrides its function's). */
function countsAt(offsets, functions) {
  const order = offsets.map((offset, i) => [offset, i]).sort((a, b) => a[0] - b[0]);
  const sorted = order.map(([offset]) => offset);
  const counts = new Array(offsets.length).fill(0);
  /** @type {V8Range[]} */
  const ranges = functions.flatMap((f) => f.ranges);
  ranges.sort((a, b) => b.endOffset - b.startOffset - (a.endOffset - a.startOffset));
  for (const range of ranges) {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] < range.startOffset) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < sorted.length && sorted[k] < range.endOffset; k++) counts[order[k][1]] = range.count;
  }
  return counts;
}

/** The first statement of an `if`'s branch: the earliest one within `within`, outside `without` and outside functions defined there (a callback in the condition). */
function firstStatement(data, within, without) {
  const nested = Object.values(data.fnMap).filter(({ loc }) => inside(loc, within.range));
  let first;
  for (const [id, range] of Object.entries(data.statementMap)) {
    if (id === within.id || !inside(range, within.range) || (without && inside(range, without))) continue;
    if (nested.some(({ loc }) => inside(range, loc))) continue;
    if (!first || before(range.start, first.range.start)) first = { id, range };
  }
  return first?.id;
}

/** Adds what the children ran to `data`. */
function apply({ data, childS, childB }) {
  const s = (id) => childS.get(id) ?? 0;
  for (const [id, count] of childS) data.s[id] += count;
  for (const [id, counts] of childB) {
    counts.forEach((count, i) => {
      data.b[id][i] += count;
    });
  }
  for (const [id, branch] of Object.entries(data.branchMap)) {
    if (branch.type !== "if") continue;
    const statement = Object.entries(data.statementMap).find(
      ([, range]) => range.start.line === branch.loc.start.line && range.start.column === branch.loc.start.column,
    );
    if (!statement) continue;
    const ifStatement = { id: statement[0], range: statement[1] };
    const alternate = branch.locations[1];
    const then = firstStatement(data, ifStatement, known(alternate) ? alternate : undefined);
    if (then === undefined) continue;
    data.b[id][0] += s(then);
    if (known(alternate)) {
      const other = firstStatement(data, { id: ifStatement.id, range: alternate }, undefined);
      if (other !== undefined) data.b[id][1] += s(other);
    } else {
      data.b[id][1] += Math.max(0, s(ifStatement.id) - s(then));
    }
  }
  // A function ran when a statement of its own ran (a nested function runs only while its outer one does).
  for (const [id, { loc }] of Object.entries(data.fnMap)) {
    let most = 0;
    for (const [sid, range] of Object.entries(data.statementMap)) if (inside(range, loc)) most = Math.max(most, data.s[sid]);
    data.f[id] = Math.max(data.f[id], most);
  }
}

/**
 * Adds the counts of every V8 coverage file in `dumpDir` for `bundles` to `map` (an
 * istanbul-lib-coverage CoverageMap holding the bundles' sources). Returns how many
 * processes ran a bundle.
 */
export function addChildCoverage(map, dumpDir, bundles) {
  const scripts = bundles.map((bundle) => locate(bundle, map));
  let processes = 0;
  for (const name of readdirSync(dumpDir)) {
    const text = readFileSync(resolve(dumpDir, name), "utf8");
    // Most dumps are of other processes (vitest, wrangler, MCP servers): skip them unparsed.
    if (!scripts.some(({ url }) => text.includes(url))) continue;
    processes++;
    const { result } = JSON.parse(text);
    for (const { url, located } of scripts) {
      const script = result.find((r) => r.url === url);
      if (!script) continue;
      for (const { points, childS, childB } of located) {
        const counts = countsAt(
          points.map((p) => p.offset),
          script.functions,
        );
        points.forEach((p, i) => {
          if (p.kind === "s") childS.set(p.id, (childS.get(p.id) ?? 0) + counts[i]);
          else {
            const all = childB.get(p.id) ?? [];
            all[p.index] = (all[p.index] ?? 0) + counts[i];
            childB.set(p.id, all);
          }
        });
      }
    }
  }
  // A source in two bundles (src/shared, auth.ts) is one file: each bundle's counts add up.
  for (const { located } of scripts) for (const file of located) apply(file);
  return processes;
}
