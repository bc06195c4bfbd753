// The set-up bench:profile and bench:trace share: a temp dir with a small folder, the
// fake Gemini scripted (for `key`) to call the filesystem server's list_directory once
// and then answer, and a real bridge serving that server; stopped (with the Workers the
// bench started, `groups`) by `stop`, whatever failed.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBridge, type RunningBridge } from "../../tests/fixtures/bridge";
import { startFakeLlm, type FakeLlm } from "../../tests/fixtures/fake-gemini";
import { filesystemBin } from "../../tests/fixtures/servers";
import { stopBridgeTree } from "./procs";
import type { Group } from "./turn-procs";

export interface OneToolTurn {
  tmp: string;
  /** The folder the filesystem server serves (real path). */
  rootPath: string;
  fake: FakeLlm;
  bridge: RunningBridge;
}

export class OneToolTurnFixture {
  /** The Workers the bench started, stopped with the rest. */
  readonly groups = new Set<Group>();
  private tmp?: string;
  private fake?: FakeLlm;
  private bridge?: RunningBridge;

  async start(prefix: string, key: string): Promise<OneToolTurn> {
    const tmp = mkdtempSync(join(tmpdir(), prefix));
    this.tmp = tmp;
    const root = join(tmp, "root");
    mkdirSync(root);
    for (const name of ["notes.txt", "todo.md"]) writeFileSync(join(root, name), `${name}\n`);
    const rootPath = realpathSync(root);
    const fake = await startFakeLlm();
    this.fake = fake;
    const auto = { call: { call: { name: "filesystem__list_directory", args: { path: rootPath } } }, text: "done" };
    await fetch(`${fake.url}/__auto/${key}`, { method: "POST", body: JSON.stringify(auto) });
    const bridge = await startBridge({ filesystem: { type: "stdio", command: process.execPath, args: [filesystemBin, rootPath] } }, [
      "--log-level",
      "warn",
      "--no-watch",
    ]);
    this.bridge = bridge;
    return { tmp, rootPath, fake, bridge };
  }

  /** Stops everything started; the bridge's notes (a child that would not stop) are returned. */
  async stop(): Promise<string[]> {
    const notes: string[] = [];
    for (const group of this.groups) await group.stop(3_000).catch(() => undefined);
    if (this.bridge) {
      notes.push(...(await stopBridgeTree(this.bridge).catch(() => [])));
      rmSync(this.bridge.dir, { recursive: true, force: true });
    }
    await this.fake?.stop().catch(() => undefined);
    if (this.tmp) rmSync(this.tmp, { recursive: true, force: true });
    return notes;
  }
}
