// The stack bench/reliability/load.ts runs against, all on 127.0.0.1 with temp dirs:
// the fake Gemini in auto mode (each turn: a `filesystem__list_directory` call, then
// text once the tool result is back), the real local bridge in front of
// @modelcontextprotocol/server-filesystem, and `wrangler dev` (bindings as --var,
// an empty --env-file so the repo's .dev.vars is not read, a temp --persist-to,
// RATE_LIMIT_* at env.ts's maxima). `stop()` ends everything that was started, by
// pid / by the process group created here; it is also run on SIGINT/SIGTERM.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startBridge, type RunningBridge } from "../../tests/fixtures/bridge";
import { startFakeLlm, type FakeLlm } from "../../tests/fixtures/fake-gemini";
import { filesystemBin } from "../../tests/fixtures/servers";
import { freePort, stopBridgeTree } from "../lib/procs";
import { startGroup, type Group } from "../lib/turn-procs";
import { setNetworkEvents } from "../../scripts/lib/dev-network-events.mjs";

export const MODEL_KEY = "bench-reliability-load";
const wranglerBin = join(dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin", "wrangler.js");
const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

export interface Running {
  workerUrl: string;
  wrangler: Group;
  bridge: RunningBridge;
  /** Stdio servers configured in the bridge (one child process each is the goal). */
  servers: string[];
}

export class LoadStack {
  private fake?: FakeLlm;
  private bridge?: RunningBridge;
  private wrangler?: Group;
  private tmp?: string;
  private stopping?: Promise<void>;

  constructor(private readonly log: (text: string) => void) {}

  async start(): Promise<Running> {
    this.tmp = mkdtempSync(join(tmpdir(), "bench-load-"));
    const root = join(this.tmp, "root");
    mkdirSync(root);
    for (const name of ["notes.txt", "todo.md", "data.json"]) writeFileSync(join(root, name), `${name}\n`);
    const rootPath = realpathSync(root);

    this.fake = await startFakeLlm();
    const auto = { call: { call: { name: "filesystem__list_directory", args: { path: rootPath } } }, text: "done" };
    const res = await fetch(`${this.fake.url}/__auto/${MODEL_KEY}`, { method: "POST", body: JSON.stringify(auto) });
    if (!res.ok) throw new Error(`fake LLM auto mode: HTTP ${res.status}`);
    this.log(`fake Gemini on ${this.fake.url}`);

    const servers = { filesystem: { type: "stdio", command: process.execPath, args: [filesystemBin, rootPath] } };
    this.bridge = await startBridge(servers, ["--log-level", "warn", "--no-watch", "--shutdown-timeout", "3"]);
    this.log(`bridge on ${this.bridge.url} (pid ${this.bridge.pid})`);

    const [port, inspector] = [await freePort(), await freePort()];
    const envFile = join(this.tmp, "empty.env");
    writeFileSync(envFile, "");
    const mcpConfig = { servers: { filesystem: { type: "stdio", command: process.execPath, args: [filesystemBin, rootPath], alwaysAllow: ["list_directory"] } } };
    const vars = {
      GEMINI_API_KEY: MODEL_KEY,
      GEMINI_BASE_URL: this.fake.url,
      BRIDGE_URL: this.bridge.url,
      BRIDGE_TOKEN: this.bridge.token,
      MCP_CONFIG: JSON.stringify(mcpConfig),
      RATE_LIMIT_PER_MINUTE: "10000",
      RATE_LIMIT_BURST: "1000",
    };
    const args = [wranglerBin, "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--show-interactive-dev-session=false"];
    args.push("--persist-to", join(this.tmp, "wrangler-state"), "--env-file", envFile);
    for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
    const t0 = performance.now();
    this.wrangler = startGroup("wrangler dev", process.execPath, args, wranglerEnv);
    await this.wrangler.waitFor(/Ready on http:\/\/\S+/, 90_000);
    // As `npm run dev` runs it: wrangler's runtime Network tracing off (scripts/lib/dev-network-events.mjs).
    await setNetworkEvents(inspector, false);
    this.log(`wrangler dev ready on :${port} in ${((performance.now() - t0) / 1000).toFixed(1)} s (pid ${this.wrangler.pid})`);
    return { workerUrl: `http://127.0.0.1:${port}`, wrangler: this.wrangler, bridge: this.bridge, servers: Object.keys(servers) };
  }

  /** Stops wrangler dev (its group), the bridge (and any server child it left), the fake model; removes temp dirs. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const note = await this.wrangler?.stop().catch(() => undefined);
      if (note) this.log(note);
      const bridge = this.bridge;
      if (bridge) {
        for (const note of await stopBridgeTree(bridge)) this.log(note);
        rmSync(bridge.dir, { recursive: true, force: true });
      }
      await this.fake?.stop().catch(() => undefined);
      if (this.tmp) rmSync(this.tmp, { recursive: true, force: true });
    })();
    return this.stopping;
  }

  /** Synchronous last resort on process exit. */
  killNow(): void {
    this.wrangler?.killNow();
    if (this.bridge?.process.exitCode === null) this.bridge.process.kill("SIGKILL");
  }
}
