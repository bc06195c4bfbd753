// Process plumbing for bench/turn.ts: a child started in its own process group
// (`detached: true`) so it and everything it spawns (wrangler dev → workerd) can
// be stopped together by signalling the group we created, by its pid; plus a
// last-resort synchronous kill for process exit, and a one-shot command runner.
import { spawn, type ChildProcess } from "node:child_process";
import { repoRoot, sleep } from "./procs";

export interface Group {
  name: string;
  pid: number;
  /** Last part of stdout+stderr (ANSI colours stripped). */
  output(): string;
  /** Everything seen since `from` (an offset into the full output count). */
  since(from: number): string;
  /** Characters seen so far (an offset for `since`). */
  seen(): number;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once no member is left. Returns a note if force was needed. */
  stop(graceMs?: number): Promise<string | undefined>;
  /** Synchronous SIGKILL to the group (for process "exit"). */
  killNow(): void;
  /** Resolves with "exit code N" / "killed by SIG" when the direct child ends. */
  exited: Promise<string>;
}

const KEEP = 256 * 1024;
// eslint-disable-next-line no-control-regex
// biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal colour codes
const ANSI = /\u001b\[[0-9;]*m/g;

/** True while any process of group `pgid` exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function startGroup(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot): Group {
  const child: ChildProcess = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let text = "";
  let total = 0;
  let exitInfo: string | undefined;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    const clean = chunk.toString("utf8").replace(ANSI, "");
    total += clean.length;
    text = (text + clean).slice(-KEEP);
    for (const listener of [...listeners]) listener();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<string>((resolve) => {
    const end = (info: string) => {
      exitInfo ??= info;
      for (const listener of [...listeners]) listener();
      resolve(exitInfo);
    };
    child.once("exit", (code, signal) => end(signal ? `killed by ${signal}` : `exit code ${code}`));
    child.once("error", (error) => end(`spawn error: ${error.message}`));
  });
  const pid = child.pid ?? 0;
  const signalGroup = (signal: NodeJS.Signals) => {
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is gone
    }
  };
  return {
    name,
    pid,
    output: () => text,
    since: (from) => text.slice(Math.max(0, text.length - (total - from))),
    seen: () => total,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const done = (error?: Error, match?: RegExpExecArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (match) resolve(match);
          else reject(error);
        };
        const check = () => {
          const match = pattern.exec(text);
          if (match) return done(undefined, match);
          if (exitInfo !== undefined) {
            const lines = text.split("\n").filter((l) => l.trim());
            const reason = lines.find((l) => /error/i.test(l)) ?? lines.at(-1) ?? "no output";
            done(new Error(`${name} ended (${exitInfo}) before ready: ${reason.trim().slice(0, 300)}`));
          }
        };
        const timer = setTimeout(() => done(new Error(`${name}: no output matching ${pattern} within ${timeoutMs} ms`)), timeoutMs);
        listeners.add(check);
        check();
      }),
    stop: async (graceMs = 8_000) => {
      if (!pid || !groupAlive(pid)) return undefined;
      signalGroup("SIGTERM");
      const deadline = Date.now() + graceMs;
      while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
      if (!groupAlive(pid)) return undefined;
      signalGroup("SIGKILL");
      const hard = Date.now() + 3_000;
      while (groupAlive(pid) && Date.now() < hard) await sleep(100);
      return `${name} (group ${pid}) ignored SIGTERM for ${graceMs} ms: SIGKILL`;
    },
    killNow: () => signalGroup("SIGKILL"),
    exited,
  };
}

/** Runs a command to its end in its own group (stopped on timeout); resolves with how it ended and its output. */
export async function runToEnd(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  track: Set<Group>,
): Promise<{ ended: string; output: string }> {
  const group = startGroup(name, command, args, env);
  track.add(group);
  try {
    const ended = await Promise.race([group.exited, sleep(timeoutMs).then(() => undefined)]);
    if (ended === undefined) throw new Error(`${name} did not end within ${timeoutMs} ms`);
    return { ended, output: group.output() };
  } finally {
    await group.stop(2_000);
    track.delete(group);
  }
}
