/** istanbul's coverage of one file, as in coverage-final.json. */
export interface FileCoverageData {
  path: string;
  statementMap: Record<string, Range>;
  fnMap: Record<string, { name: string; decl: Range; loc: Range; line: number }>;
  branchMap: Record<string, { type: string; loc: Range; locations: Range[]; line: number }>;
  s: Record<string, number>;
  f: Record<string, number>;
  b: Record<string, number[]>;
}
export interface Range {
  start: { line: number; column: number };
  end: { line: number; column: number };
}
/** What addChildCoverage needs of an istanbul-lib-coverage CoverageMap. */
export interface CoverageMapLike {
  files(): string[];
  fileCoverageFor(path: string): { data: FileCoverageData };
}
/** Adds the bridge processes' V8 counts in `dumpDir` for `bundles` to `map`; returns how many processes ran a bundle (see child-coverage.mjs). */
export function addChildCoverage(map: CoverageMapLike, dumpDir: string, bundles: string[]): number;
