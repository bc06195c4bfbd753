// The Worker under bench/turn.ts: `wrangler dev` started from a checkout (this one,
// or another for a before/after) in its own process group, with the bench's fake
// model, bridge and filesystem server, and the port of the workerd that runs it
// behind wrangler's dev-only proxy. wrangler's dev inspector has its runtime Network
// events turned off, as `npm run dev` does (scripts/lib/dev-network-events.mjs): a
// deployment has no such tracing, and here it cost as much as the Worker's own turn.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { RunningBridge } from "../../tests/fixtures/bridge";
import { filesystemBin } from "../../tests/fixtures/servers";
import { setNetworkEvents } from "../../scripts/lib/dev-network-events.mjs";
import { descendantsOf, errorText, freePort } from "./procs";
import { startGroup, type Group } from "./turn-procs";

export const wranglerBin = join(dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin", "wrangler.js");
export const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

export interface BenchWorker {
  /** wrangler dev's public port (through its proxy). */
  url: string;
  /** The workerd that runs the Worker, when found. */
  direct?: string;
  /** The V8 inspector of the Worker's isolate (bench/profile-turn.ts). */
  inspector: number;
  group: Group;
}

export interface WorkerOptions {
  /** The checkout whose Worker runs. */
  dir: string;
  /** The folder server-filesystem serves. */
  root: string;
  fakeUrl: string;
  apiKey: string;
  bridge: RunningBridge;
  /** Where this Worker's Durable Objects' state goes (a fresh folder inside it). */
  stateParent: string;
  /** Folders the caller removes at the end; this Worker's state is added. */
  cleanupDirs: string[];
  /** Process groups the caller stops at the end; this one is added. */
  groups: Set<Group>;
  /** Notes for the report (a direct port not found). */
  observations: string[];
  /** More Worker variables (bench/trace.ts: LOG_LEVEL). */
  vars?: Record<string, string>;
}

export async function startWorker(o: WorkerOptions): Promise<BenchWorker> {
  const [port, inspector] = [await freePort(), await freePort()];
  const state = mkdtempSync(join(o.stateParent, "bench-turn-state-"));
  o.cleanupDirs.push(state);
  const envFile = join(state, "empty.env"); // so the checkout's .dev.vars is not read
  writeFileSync(envFile, "");
  const mcpConfig = { servers: { filesystem: { type: "stdio", command: process.execPath, args: [filesystemBin, o.root], alwaysAllow: ["list_directory"] } } };
  const vars = {
    GEMINI_API_KEY: o.apiKey,
    GEMINI_BASE_URL: o.fakeUrl,
    BRIDGE_URL: o.bridge.url,
    BRIDGE_TOKEN: o.bridge.token,
    MCP_CONFIG: JSON.stringify(mcpConfig),
    RATE_LIMIT_PER_MINUTE: "10000",
    RATE_LIMIT_BURST: "1000",
    ...o.vars,
  };
  const args = [wranglerBin, "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--show-interactive-dev-session=false"];
  args.push("--persist-to", state, "--env-file", envFile);
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const group = startGroup("wrangler dev", process.execPath, args, wranglerEnv, o.dir);
  o.groups.add(group);
  await group.waitFor(/Ready on http:\/\/\S+/, 90_000);
  const direct = await directUrl(group, [port, inspector]).catch((e: unknown) => void o.observations.push(`direct workerd path not measured: ${errorText(e)}`));
  await setNetworkEvents(inspector, false).catch((e: unknown) => o.observations.push(`wrangler's runtime Network events stay on: ${errorText(e)}`));
  return { url: `http://127.0.0.1:${port}`, direct: direct ?? undefined, inspector, group };
}

/**
 * The URL of the workerd that runs the Worker itself, behind wrangler dev's proxy:
 * a listening socket of the group's workerd processes, other than the public and
 * inspector ports, that answers /api/health as edgehost.
 */
async function directUrl(group: Group, skip: number[]): Promise<string> {
  const pids = new Set(descendantsOf(group.pid).map(String));
  const ports = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => [...line.matchAll(/pid=(\d+)/g)].some((m) => pids.has(m[1] ?? "")))
    .map((line) => Number(/127\.0\.0\.1:(\d+)/.exec(line)?.[1]))
    .filter((port) => Number.isInteger(port) && !skip.includes(port));
  for (const port of ports) {
    const body = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.text(),
      () => "",
    );
    if (body.includes('"service":"edgehost"')) return `http://127.0.0.1:${port}`;
  }
  throw new Error(`no workerd socket of wrangler dev answered /api/health (tried ${ports.join(", ") || "none"})`);
}
