// A turn as syscalls on one clock (bench/first-token.ts --syscalls): `perf trace -T` on the
// Worker's workerd processes and on this process (which runs the fake model and the client),
// from a marker this process writes to /dev/null right before it sends. perf reads the
// kernel's tracepoints, so the traced processes are not stopped at each call as strace's
// ptrace stops them (a turn under strace took 420 ms, s50/WS). Each fd is named from /proc
// before the trace ends: a Durable Object's SQLite WAL by its class (an fsync of it is a
// commit), a TCP socket by its ports and the caller's labels (the model, the page's socket).
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CALLS = "fsync,fdatasync,read,write,writev,pwrite64,sendto,recvfrom";
const MARK = "first-token-mark";

/** Socket inode -> "local port -> remote port", from /proc/net/tcp and tcp6 (ports in hex). */
function tcpByInode(): Map<string, { local: number; remote: number }> {
  const map = new Map<string, { local: number; remote: number }>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      const [local, remote, inode] = [f[1], f[2], f[9]];
      if (!local || !remote || !inode) continue;
      map.set(inode, { local: Number.parseInt(local.split(":")[1] ?? "0", 16), remote: Number.parseInt(remote.split(":")[1] ?? "0", 16) });
    }
  }
  return map;
}

/** Each open fd of `pid`, named: `ports` labels a socket by either of its ports. */
function fdNames(pid: number, ports: Record<number, string>): Map<number, string> {
  const tcp = tcpByInode();
  const names = new Map<number, string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const socket = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    const ends = socket ? tcp.get(socket) : undefined;
    if (ends) names.set(Number(fd), ports[ends.remote] ?? ports[ends.local] ?? `tcp :${ends.local}->:${ends.remote}`);
    else if (link.endsWith(".sqlite-wal")) names.set(Number(fd), `${/edgehost-(\w+)\//.exec(link)?.[1] ?? "sqlite"} WAL`);
    else if (!link.startsWith("anon_inode") && !link.startsWith("pipe")) names.set(Number(fd), link.replace(/^.*\//, ""));
  }
  return names;
}

export interface SyscallTrace {
  /** Writes the marker the timeline starts from: call it right before the send. */
  mark(): void;
  /** Stops the trace; the workerd syscalls (and this process's on the labelled sockets) from the marker on, for `ms`. */
  stop(ms: number): Promise<string[]>;
}

/** Starts `perf trace` on `pids` and this process; `ports`: labels for sockets (e.g. the fake model's port). */
export async function traceSyscalls(pids: number[], ports: Record<number, string>): Promise<SyscallTrace> {
  const dir = mkdtempSync(join(tmpdir(), "first-token-perf-"));
  const out = join(dir, "trace.txt");
  const traced = [...pids, process.pid];
  const perf = spawn("perf", ["trace", "-T", "--no-inherit", "-e", CALLS, "-o", out, "-p", traced.join(",")], { stdio: ["ignore", "ignore", "pipe"] });
  let errors = "";
  perf.stderr.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const closed = new Promise<void>((resolve, reject) => {
    perf.once("error", reject);
    perf.once("close", () => resolve());
  });
  const devNull = openSync("/dev/null", "w");
  return {
    mark: () => writeSync(devNull, MARK),
    async stop(ms) {
      // Named before perf stops: the sockets and files are still open.
      const names = new Map(traced.map((pid) => [pid, fdNames(pid, ports)] as const));
      // perf names the thread: its process (whose fd table it shares) from /proc.
      const pidOf = new Map<number, number>();
      for (const pid of traced) for (const task of readdirSync(`/proc/${pid}/task`)) pidOf.set(Number(task), pid);
      perf.kill("SIGINT");
      await closed;
      closeSync(devNull);
      const text = readFileSync(out, "utf8");
      rmSync(dir, { recursive: true, force: true });
      if (!text.trim()) throw new Error(`perf trace recorded nothing: ${errors.trim() || "no output"}`);
      const rows: { at: number; line: string; mine: boolean; fd: number; pid: number }[] = [];
      let markAt = Number.NaN;
      for (const line of text.split("\n")) {
        const m = /^\s*([\d.]+) \(\s*([\d.]*) ms\): (\S+?)\/(\d+) (\w+)\(fd: (\d+)[^)]*\)\s*=\s*(-?\d+)/.exec(line);
        if (!m) continue;
        const [, at, dur, comm, tid, call, fd, ret] = m;
        if (Number(tid) === process.pid && call === "write" && Number(ret) === MARK.length && Number.isNaN(markAt)) {
          markAt = Number(at);
          continue;
        }
        if (Number(ret) < 0) continue; // EAGAIN: a poll that found nothing
        const pid = pidOf.get(Number(tid)) ?? Number(tid);
        const name = names.get(pid)?.get(Number(fd)) ?? `fd ${fd}`;
        rows.push({
          at: Number(at),
          pid,
          fd: Number(fd),
          mine: pid === process.pid,
          line: `${comm}/${tid} ${call} ${name} = ${ret}${dur ? ` (${dur} ms)` : ""}`,
        });
      }
      if (Number.isNaN(markAt)) throw new Error("the marker was not in the trace");
      return rows
        .filter((r) => r.at >= markAt && r.at <= markAt + ms && (!r.mine || Object.values(ports).includes(names.get(r.pid)?.get(r.fd) ?? "")))
        .sort((a, b) => a.at - b.at)
        .map((r) => `${(r.at - markAt).toFixed(2).padStart(7)}  ${r.line}`);
    },
  };
}
