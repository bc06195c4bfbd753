// The guard against a slow drift: this tree against another commit (the last landed
// one), on the turn's figures, in one run. REV is checked out into a temporary git
// worktree (its node_modules linked from this tree's when the lockfiles match, else
// installed with `npm ci`), then:
//   - bench:turn with `--baseline-dir`: both Workers in the same rotating blocks,
//     turns alternating (turn p50 each, their ratio, the turn-by-turn difference,
//     each Worker's turn against the floor and where the time goes);
//   - bench:cold for this tree, then for REV (`--worker-dir`): cold − warm each;
//   - bench:growth --warm run from each checkout: a warm turn at ~1,000 entries
//     against ~10;
//   - bench:bundle with `--worker-dir`: the upload's gzip size each;
//   - bench:trace with `--worker-dir`: storage syncs per turn each (a count: load does not move it).
// Each figure is printed beside REV's with its ratio; the benches' own output goes to
// stderr. Run this against the last landed commit before closing an issue that
// touches a turn's path, and quote it in the closing note.
// Run: npm run bench:against -- REV [--skip syncs,cold,growth,bundle]
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "./lib/procs";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { skip: { type: "string" } } });
const rev = positionals[0];
if (!rev) {
  console.error("usage: npm run bench:against -- REV [--skip syncs,cold,growth,bundle]");
  process.exit(2);
}
const skip = new Set((values.skip ?? "").split(",").filter(Boolean));
const log = (text: string) => process.stderr.write(`against: ${text}\n`);
const git = (...args: string[]) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8" }).trim();

/** Runs a bench script with tsx from `cwd`; its output, also passed through to stderr. */
function bench(cwd: string, script: string, args: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const tsx = join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs");
    const child = spawn(process.execPath, [tsx, script, ...args], { cwd, stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      process.stderr.write(chunk);
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`${script} in ${cwd} exited with ${code}`))));
  });
}

const number = (text: string, pattern: RegExp): number | undefined => {
  const found = pattern.exec(text)?.[1];
  return found === undefined ? undefined : Number(found);
};

const rows: { figure: string; here?: number; base?: number; unit: string }[] = [];
const add = (figure: string, unit: string, here?: number, base?: number) => rows.push({ figure, here, base, unit });

const commit = git("rev-parse", "--verify", `${rev}^{commit}`);
const dir = mkdtempSync(join(tmpdir(), "edgehost-against-"));
let added = false;
try {
  log(`checking out ${commit.slice(0, 12)} into ${dir}`);
  git("worktree", "add", "--detach", dir, commit);
  added = true;
  const sameLock = readFileSync(join(repoRoot, "package-lock.json"), "utf8") === readFileSync(join(dir, "package-lock.json"), "utf8");
  if (sameLock) symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
  else {
    log("its lockfile differs: npm ci there (a few minutes)");
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
  }

  const turn = await bench(repoRoot, "bench/turn.ts", ["--baseline-dir", dir]);
  const pair = /this tree \/ baseline, same run, workerd directly: ([\d.]+) \/ ([\d.]+) ms/.exec(turn);
  add("warm turn p50 (workerd directly, alternating)", "ms", Number(pair?.[1]), Number(pair?.[2]));
  add("this tree − REV, turn by turn (median)", "ms", number(turn, /turn by turn \(\d+ pairs, alternating\): median ([-\d.]+) ms/));
  add(
    "turn / floor",
    "x",
    number(turn, /Worker \(workerd directly\) p50 \/ floor p50 = ([\d.]+)/),
    number(turn, /baseline Worker \(workerd directly\) p50 \/ floor p50 = ([\d.]+)/),
  );
  const phase = (who: string, name: string) => number(turn, new RegExp(`${who}:\\s+.*?${name} ([\\d.]+)`));
  for (const [name, label] of [
    ["send→turn_start", "send → turn_start"],
    ["\\(prepare, prompt, model call 1\\)", "turn_start → tool start"],
    ["tool done→first text \\(model call 2\\)", "tool done → first text"],
    ["first text→turn_end", "first text → turn_end"],
  ] as const) {
    add(`  ${label} (median)`, "ms", phase("Worker, direct", name), phase("baseline, direct", name));
  }

  if (!skip.has("syncs")) {
    // Storage syncs per turn: counted, not timed, so a regression shows whatever the machine's load.
    const trace = await bench(repoRoot, "bench/trace.ts", ["--worker-dir", dir]);
    const syncs = [...trace.matchAll(/^\| (?:this tree|\/\S+) \| ([\d.]+) \|/gm)].map((m) => Number(m[1]));
    add("storage syncs per warm turn (counted)", "", syncs[0], syncs[1]);
  }
  if (!skip.has("cold")) {
    const gap = (text: string) => number(text, /Cold - warm, first model request: ([-\d.]+) ms/);
    const here = await bench(repoRoot, "bench/cold-session.ts");
    const base = await bench(repoRoot, "bench/cold-session.ts", ["--worker-dir", dir]);
    add("cold − warm, first model request", "ms", gap(here), gap(base));
  }
  if (!skip.has("growth")) {
    const large = (text: string) => number(text, /\| ~1,000 entries \| \d+ \| ([\d.]+) \|/);
    const here = await bench(repoRoot, "bench/growth.ts", ["--warm"]);
    const base = existsSync(join(dir, "bench", "growth.ts")) ? await bench(dir, "bench/growth.ts", ["--warm"]) : "";
    add("warm turn at ~1,000 entries", "ms", large(here), large(base));
  }
  if (!skip.has("bundle")) {
    const bundle = await bench(repoRoot, "bench/bundle.ts", ["--worker-dir", dir]);
    const sizes = /upload: [\d.]+ KiB raw, ([\d.]+) KiB gzip \(baseline ([\d.]+) KiB gzip\)/.exec(bundle);
    add("upload gzip", "KiB", Number(sizes?.[1]), Number(sizes?.[2]));
  }
} finally {
  if (added) git("worktree", "remove", "--force", dir);
  rmSync(dir, { recursive: true, force: true });
}

const show = (n: number | undefined, unit: string) =>
  n === undefined || Number.isNaN(n) ? "-" : `${n.toFixed(unit === "x" || unit === "" ? 2 : 1)} ${unit}`.trim();
console.log(`\nthis tree against ${rev} (${commit.slice(0, 12)}), same run\n`);
console.log(`| figure | this tree | ${rev} | ratio |\n|---|---:|---:|---:|`);
for (const { figure, here, base, unit } of rows) {
  const ratio = here !== undefined && base !== undefined && base > 0 ? `${(here / base).toFixed(2)}x` : "-";
  console.log(`| ${figure} | ${show(here, unit)} | ${show(base, unit)} | ${ratio} |`);
}
