// A page bench's stack: one fake model (tests/fixtures/fake-gemini.ts), one bridge
// (server-filesystem on a temp folder), a `wrangler dev` per checkout (this tree and,
// for a before/after in one run, another one such as the starting commit) and
// Debian's Chromium as the page tests launch it (tests/e2e/browser.ts). Every process it starts is stopped by
// stop(), on SIGINT/SIGTERM, and (hard) at exit. Used by bench/page-stream.ts.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../../tests/e2e/browser";
import { startBridge, type RunningBridge } from "../../tests/fixtures/bridge";
import { startFakeLlm, type FakeLlm } from "../../tests/fixtures/fake-gemini";
import { filesystemBin } from "../../tests/fixtures/servers";
import { startFakeProcess } from "./fake-process";
import { monoOffset } from "./mono-clock";
import { stopBridgeTree } from "./procs";
import type { Group } from "./turn-procs";
import { startWorker, type BenchWorker } from "./turn-worker";

export interface PageStack {
  /** `monoOffset`: add to a time the fake recorded for CLOCK_MONOTONIC ms (CDP's clock). */
  fake: FakeLlm & { monoOffset: number };
  /** The key every Worker sends to the fake model (script replies under it). */
  apiKey: string;
  browser: Browser;
  /** One Worker per checkout, in the order given. */
  workers: { dir: string; worker: BenchWorker }[];
  /** Notes for the report (e.g. a workerd port not found). */
  observations: string[];
  stop(): Promise<void>;
}

/** `fakeProcess`: the fake model in a child process (fake-process.ts), not in the bench's own. */
export async function startPageStack(options: { dirs: string[]; apiKey?: string; fakeProcess?: boolean }): Promise<PageStack> {
  const tmp = mkdtempSync(join(tmpdir(), "bench-page-"));
  const root = join(tmp, "root");
  mkdirSync(root);
  writeFileSync(join(root, "notes.txt"), "remember the milk\n");
  const groups = new Set<Group>();
  const cleanupDirs: string[] = [tmp];
  const observations: string[] = [];
  let fake: PageStack["fake"] | undefined;
  let bridge: RunningBridge | undefined;
  let browser: Browser | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await browser?.close().catch(() => undefined);
      for (const group of groups) await group.stop();
      if (bridge) {
        await stopBridgeTree(bridge);
        rmSync(bridge.dir, { recursive: true, force: true });
      }
      await fake?.stop().catch(() => undefined);
      for (const dir of cleanupDirs) rmSync(dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\nbench: ${signal}, stopping everything\n`);
    void stop().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("exit", () => {
    for (const group of groups) group.killNow();
    if (bridge?.process.exitCode === null) bridge.process.kill("SIGKILL");
  });
  try {
    const apiKey = options.apiKey ?? "bench-page";
    const rootPath = realpathSync(root);
    fake = options.fakeProcess ? await startFakeProcess() : { ...(await startFakeLlm()), monoOffset: monoOffset() };
    bridge = await startBridge({ filesystem: { type: "stdio", command: process.execPath, args: [filesystemBin, rootPath] } }, [
      "--log-level",
      "warn",
      "--no-watch",
      "--shutdown-timeout",
      "3",
    ]);
    const workers: PageStack["workers"] = [];
    // One after the other: two wrangler starts at once on a loaded 2-core machine time out.
    for (const dir of options.dirs) {
      // A budget no bench chat reaches: past the default's 32,000 tokens (the third 60 KB answer in
      // bench:page-stream) the turn first asks the model for a summary, which took the next scripted
      // reply and left the turn itself none ("no scripted reply", a run that never settled).
      const vars = { HISTORY_TOKEN_BUDGET: "1000000" };
      const worker = await startWorker({ dir, root: rootPath, fakeUrl: fake.url, apiKey, bridge, stateParent: tmp, cleanupDirs, groups, observations, vars });
      workers.push({ dir, worker });
    }
    // The page tests' Chromium, with the same flags (tests/e2e/browser.ts).
    browser = await launchBrowser();
    return { fake, apiKey, browser, workers, observations, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
