// The fake model (tests/fixtures/fake-gemini.ts) in a child process, for the page benches: in
// the bench's own process it shares one event loop with playwright's CDP traffic, and a request
// the Worker had written waited there to be read (up to 7 ms in a traced page turn, load 2):
// time the first-token figure counted as ours. Its records' times are on the child's clock;
// `monoOffset` puts them on CLOCK_MONOTONIC (add it), as CDP's timestamps are.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FakeLlm } from "../../tests/fixtures/fake-gemini";

export interface FakeProcess extends FakeLlm {
  /** Add to a record's time (the child's performance.now()) for CLOCK_MONOTONIC ms. */
  monoOffset: number;
}

export async function startFakeProcess(): Promise<FakeProcess> {
  const main = fileURLToPath(new URL("./fake-process-main.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", main], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = await new Promise<{ url: string; monoOffset: number }>((resolve, reject) => {
    let out = "";
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the fake model's process exited (${code}) before it was ready`)));
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve(JSON.parse(line) as { url: string; monoOffset: number });
    });
  });
  return {
    ...ready,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}
