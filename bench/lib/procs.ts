// Process plumbing for bench/bridge.ts: start a server process, wait for its
// "ready" line and port, read RSS and children from /proc, and stop it together
// with every descendant it left behind (by pid, checked against its start time so
// a recycled pid is never signalled).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Rejects after `ms` with a message naming what was awaited. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, " ").slice(0, 160);
}

interface ProcStat {
  state: string;
  ppid: number;
  start: string;
}

function statOf(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 (state): ppid is field 4, starttime field 22.
    return { state: fields[0] ?? "", ppid: Number(fields[1]), start: fields[19] ?? "" };
  } catch {
    return undefined; // gone
  }
}

/** Direct children of a process, from /proc (as tests/fixtures/bridge.ts does). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    if (statOf(Number(entry))?.ppid === pid) children.push(Number(entry));
  }
  return children;
}

/** Every descendant (children, grandchildren, ...), breadth first. */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = frontier.flatMap((p) => childrenOf(p));
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** VmRSS in MB, or undefined when the process is gone. */
export function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** RSS of a process plus all its descendants, MB. */
export function treeRssMb(pid: number): number | undefined {
  const own = rssMb(pid);
  if (own === undefined) return undefined;
  return descendantsOf(pid).reduce((sum, p) => sum + (rssMb(p) ?? 0), own);
}

/** Own VmRSS in MB, and as text: "own (tree whole-tree)", or "gone". */
export function rssText(pid: number): { own: number | undefined; text: string } {
  const own = rssMb(pid);
  const tree = treeRssMb(pid);
  return { own, text: own === undefined ? "gone" : `${own.toFixed(1)} (tree ${(tree ?? own).toFixed(0)})` };
}

/** Notes on the bridge's JSON log: warn/error lines, and error-like stderr lines of its servers. */
export function bridgeLogProblems(output: string): string[] {
  const lines = output.split("\n");
  const notes: string[] = [];
  const bad = lines.filter((line) => /"level":"(warn|error)"/.test(line));
  if (bad.length > 0) notes.push(`bridge logged ${bad.length} warn/error lines, e.g. ${bad[0]?.slice(0, 200)}`);
  const childErrors = lines.filter((line) => /"msg":"server stderr"/.test(line) && /error|fail/i.test(line));
  if (childErrors.length > 0) notes.push(`server stderr via the bridge: ${childErrors.length} error-like lines, e.g. ${childErrors[0]?.slice(0, 220)}`);
  return notes;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Polls until 127.0.0.1:port accepts a TCP connection. */
export async function waitForTcp(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`port ${port} not accepting connections after ${timeoutMs} ms`);
    await sleep(100);
  }
}

export interface Managed {
  name: string;
  pid: number;
  commandLine: string;
  /** Last part of stdout+stderr. */
  output(): string;
  /** Resolves with the first output match; rejects on exit or timeout. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** SIGTERM (SIGKILL after a grace period), then ends leftover descendants. Returns what needed force. */
  stop(): Promise<string[]>;
}

const OUTPUT_KEEP = 64 * 1024;

export function startManaged(name: string, command: string, args: string[], env?: NodeJS.ProcessEnv): Managed {
  const child: ChildProcess = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], cwd: repoRoot, env: env ?? process.env });
  let output = "";
  let exitInfo: string | undefined;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-OUTPUT_KEEP);
    for (const listener of [...listeners]) listener();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exitInfo = signal ? `killed by ${signal}` : `exit code ${code}`;
      for (const listener of [...listeners]) listener();
      resolve();
    });
    child.once("error", (error) => {
      exitInfo = `spawn error: ${error.message}`;
      for (const listener of [...listeners]) listener();
      resolve();
    });
  });
  const pid = child.pid ?? 0;
  // Descendants seen while running, with start times: they are ended by pid at stop.
  const seen = new Map<number, string>();
  const remember = () => {
    for (const p of descendantsOf(pid)) {
      const stat = statOf(p);
      if (stat && !seen.has(p)) seen.set(p, stat.start);
    }
  };
  const tracker = setInterval(() => {
    if (pid && exitInfo === undefined) remember();
  }, 500);
  tracker.unref();

  // A zombie (Z) has ended; it only waits for its parent (or init) to reap it.
  const alive = (p: number, start: string) => {
    const stat = statOf(p);
    return stat?.start === start && stat.state !== "Z";
  };
  return {
    name,
    pid,
    commandLine: [command, ...args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(" "),
    output: () => output,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no output matching ${pattern} within ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(output);
          if (match) done(undefined, match);
          else if (exitInfo !== undefined) {
            const lines = output.split("\n").filter((l) => l.trim());
            const reason = lines.find((l) => /error/i.test(l)) ?? lines.at(-1) ?? "no output";
            done(new Error(`${name} ended (${exitInfo}) before ready: ${reason.trim()}`));
          }
        };
        const done = (error?: Error, match?: RegExpExecArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (match) resolve(match);
          else reject(error);
        };
        listeners.add(check);
        check();
      }),
    stop: async () => {
      const forced: string[] = [];
      if (pid && exitInfo === undefined) remember();
      clearInterval(tracker);
      if (exitInfo === undefined) {
        child.kill("SIGTERM");
        const ended = await Promise.race([exited.then(() => true), sleep(8_000).then(() => false)]);
        if (!ended) {
          forced.push(`${name} (pid ${pid}) ignored SIGTERM for 8 s: SIGKILL`);
          child.kill("SIGKILL");
          await Promise.race([exited, sleep(3_000)]);
        }
      }
      // Give the process's own cleanup a moment to end its children, then end the rest.
      const deadline = Date.now() + 3_000;
      while ([...seen].some(([p, start]) => alive(p, start)) && Date.now() < deadline) await sleep(100);
      for (const [p, start] of seen) {
        if (!alive(p, start)) continue;
        forced.push(`${name} left pid ${p} running: SIGTERM/SIGKILL`);
        try {
          process.kill(p, "SIGTERM");
          await sleep(500);
          if (alive(p, start)) process.kill(p, "SIGKILL");
        } catch {
          // already gone
        }
      }
      return forced;
    },
  };
}

/**
 * Stops a bridge and SIGKILLs any server-filesystem it left behind (a bridge killed
 * hard cannot stop its children). Returns notes on what had to be killed.
 */
export async function stopBridgeTree(bridge: { pid: number; stop(): Promise<unknown> }): Promise<string[]> {
  const tree = descendantsOf(bridge.pid);
  await bridge.stop().catch(() => undefined);
  const notes: string[] = [];
  for (const pid of tree) {
    const cmd = existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, "utf8") : "";
    if (cmd.includes("server-filesystem")) {
      notes.push(`bridge left pid ${pid} running: SIGKILL`);
      process.kill(pid, "SIGKILL");
    }
  }
  return notes;
}

/** CPU time a process has used so far, all its threads, in ns (schedstat: exact, unlike the clock ticks of /proc/pid/stat); 0 when gone. */
export function cpuTimeNs(pid: number): number {
  try {
    let total = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0] ?? 0);
    }
    return total;
  } catch {
    return 0;
  }
}
