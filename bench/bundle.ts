// What the deployed Worker weighs and what weighs most in it: `wrangler deploy
// --dry-run` (the exact upload, minified as wrangler.toml says) into a temporary folder
// with esbuild's metafile, then the upload's gzip size and each package's share of it.
// A share's gzip figure is the package's part of the minified bytes times the whole
// file's gzip ratio (parts do not compress alone as they do together). Goal: the
// upload under 800 KiB gzip (issue 36). `--worker-dir DIR` weighs another checkout
// (a baseline commit) in the same run.
// Run: npm run bench:bundle [-- --worker-dir DIR]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { repoRoot } from "./lib/procs";

const GOAL_KIB = 800;
const ROWS = 14;

interface Metafile {
  outputs: Record<string, { bytes: number; inputs?: Record<string, { bytesInOutput: number }> }>;
}

interface Weight {
  gzipKiB: number;
  rawKiB: number;
  parts: [string, number][];
}

/** The package (or our folder) an esbuild input belongs to. */
function partOf(input: string): string {
  const inModules = input.lastIndexOf("node_modules/");
  if (inModules >= 0) {
    const rest = input.slice(inModules + "node_modules/".length).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? input);
  }
  const src = input.indexOf("src/");
  return src >= 0 ? input.slice(src).split("/").slice(0, 2).join("/") : input;
}

function weigh(dir: string): Weight {
  const out = mkdtempSync(join(tmpdir(), "edgehost-bundle-"));
  try {
    const wrangler = join(repoRoot, "node_modules", "wrangler", "bin", "wrangler.js");
    execFileSync(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", out, "--metafile", join(out, "meta.json")], {
      cwd: dir,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: "ignore",
    });
    const code = readFileSync(join(out, "index.js"));
    const meta = JSON.parse(readFileSync(join(out, "meta.json"), "utf8")) as Metafile;
    const entry = Object.entries(meta.outputs).find(([name]) => name.endsWith("index.js"))?.[1];
    const ratio = gzipSync(code).length / code.length;
    const byPart = new Map<string, number>();
    for (const [input, { bytesInOutput }] of Object.entries(entry?.inputs ?? {})) {
      byPart.set(partOf(input), (byPart.get(partOf(input)) ?? 0) + bytesInOutput);
    }
    const parts = [...byPart].sort((a, b) => b[1] - a[1]).map(([part, bytes]): [string, number] => [part, (bytes * ratio) / 1024]);
    return { gzipKiB: gzipSync(code).length / 1024, rawKiB: code.length / 1024, parts };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const { values } = parseArgs({ options: { "worker-dir": { type: "string" } } });
const here = weigh(repoRoot);
const base = values["worker-dir"] ? weigh(values["worker-dir"]) : undefined;
const kib = (n: number) => `${n.toFixed(0)} KiB`;

console.log("part (gzip share of the upload)".padEnd(40), "this tree".padStart(10), base ? "baseline".padStart(10) : "");
const baseParts = new Map(base?.parts);
for (const [part, size] of here.parts.slice(0, ROWS)) {
  console.log(part.padEnd(40), kib(size).padStart(10), base ? kib(baseParts.get(part) ?? 0).padStart(10) : "");
}
const rest = here.parts.slice(ROWS).reduce((sum, [, size]) => sum + size, 0);
console.log("the rest".padEnd(40), kib(rest).padStart(10));
console.log(`upload: ${kib(here.rawKiB)} raw, ${kib(here.gzipKiB)} gzip${base ? ` (baseline ${kib(base.gzipKiB)} gzip)` : ""}`);
console.log(here.gzipKiB <= GOAL_KIB ? `goal met: under ${GOAL_KIB} KiB gzip` : `goal missed: over ${GOAL_KIB} KiB gzip`);
