// The stack bench/reliability/load.ts runs against, all on 127.0.0.1 with temp dirs:
// the fake Gemini in auto mode (each turn: a `filesystem__list_directory` call, then
// text once the tool result is back), the real local bridge in front of
// @modelcontextprotocol/server-filesystem, and `wrangler dev` started as bench:turn
// starts it (bench/lib/turn-worker.ts: bindings as --var, an empty --env-file, a temp
// --persist-to, RATE_LIMIT_* at env.ts's maxima, network tracing off). `stop()` ends everything that was started, by
// pid / by the process group created here; it is also run on SIGINT/SIGTERM.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBridge, type RunningBridge } from "../../tests/fixtures/bridge";
import { startFakeLlm, type FakeLlm } from "../../tests/fixtures/fake-gemini";
import { filesystemBin } from "../../tests/fixtures/servers";
import { repoRoot, stopBridgeTree } from "../lib/procs";
import type { Group } from "../lib/turn-procs";
import { startWorker } from "../lib/turn-worker";

export const MODEL_KEY = "bench-reliability-load";

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
  /** wrangler dev's process group, once started (bench/lib/turn-worker.ts). */
  private readonly groups = new Set<Group>();
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

    const t0 = performance.now();
    const worker = await startWorker({
      dir: repoRoot,
      root: rootPath,
      fakeUrl: this.fake.url,
      apiKey: MODEL_KEY,
      bridge: this.bridge,
      stateParent: this.tmp,
      cleanupDirs: [],
      groups: this.groups,
      observations: [],
    });
    this.log(`wrangler dev ready on ${worker.url} in ${((performance.now() - t0) / 1000).toFixed(1)} s (pid ${worker.group.pid})`);
    return { workerUrl: worker.url, wrangler: worker.group, bridge: this.bridge, servers: Object.keys(servers) };
  }

  /** Stops wrangler dev (its group), the bridge (and any server child it left), the fake model; removes temp dirs. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const group of this.groups) {
        const note = await group.stop().catch(() => undefined);
        if (note) this.log(note);
      }
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
    for (const group of this.groups) group.killNow();
    if (this.bridge?.process.exitCode === null) this.bridge.process.kill("SIGKILL");
  }
}
