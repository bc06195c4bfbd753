// Keeps a record of every process a test's run started, from /proc: descendants of
// the root pid and members of their process groups (which still count after their
// parent died and they were re-parented), each with its start time so a reused pid
// is not mistaken for a survivor.
import { readdirSync, readFileSync } from "node:fs";

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  /** Clock ticks since boot: with the pid, identifies one process. */
  started: number;
  cmd: string;
}

export function procInfo(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    return { pid, state: fields[0] ?? "?", ppid: Number(fields[1]), pgid: Number(fields[2]), started: Number(fields[19]), cmd };
  } catch {
    return undefined;
  }
}

export function allProcesses(): ProcInfo[] {
  const list: ProcInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = procInfo(Number(entry));
    if (info) list.push(info);
  }
  return list;
}

/** Running (not a zombie, not reused since it was seen). */
export function stillRunning(seen: ProcInfo): boolean {
  const now = procInfo(seen.pid);
  return now !== undefined && now.started === seen.started && now.state !== "Z" && now.state !== "X";
}

export class ProcessWatch {
  private readonly seen = new Map<number, ProcInfo>();
  private readonly timer: ReturnType<typeof setInterval>;

  /** Samples every 100 ms: short-lived processes (a failed start) are caught too. */
  constructor(private readonly root: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 100);
  }

  sample(): void {
    const processes = allProcesses();
    let grew = true;
    while (grew) {
      grew = false;
      for (const p of processes) {
        if (this.seen.has(p.pid) && this.seen.get(p.pid)?.started === p.started) continue;
        const known = p.pid === this.root || this.seen.has(p.ppid) || this.seen.has(p.pgid);
        if (known && p.state !== "Z") {
          this.seen.set(p.pid, p);
          grew = true;
        }
      }
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }

  processes(): ProcInfo[] {
    return [...this.seen.values()];
  }

  /** Running processes whose command line matches, read afresh (one seen between fork and exec showed its parent's). */
  find(pattern: RegExp): ProcInfo[] {
    this.sample();
    return this.processes()
      .filter(stillRunning)
      .flatMap((p) => procInfo(p.pid) ?? [])
      .filter((p) => pattern.test(p.cmd));
  }

  /** Resolves with what is still running once all has ended, or after `timeoutMs` (the kernel reaps SIGKILLed processes asynchronously). */
  async leftovers(timeoutMs = 3_000): Promise<string[]> {
    this.stop();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const alive = this.processes().filter(stillRunning);
      if (alive.length === 0 || Date.now() > deadline) return alive.map((p) => `${p.pid} ${p.cmd}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
