// Memory and process samples for bench/reliability/load.ts, read from /proc: the
// RSS of the workerd process(es) under `wrangler dev` (descendants of the wrangler
// pid whose comm is "workerd": the one started with --inspector-addr runs the Worker
// and its Durable Objects, "runtime"; the other is wrangler's own dev proxy in front
// of it, which every request and WebSocket passes through, "proxy"), the RSS of the bridge process, the bridge's direct
// child processes (goal: one per configured stdio server), and the bridge's open
// MCP HTTP sessions (from its /metrics route).
import { readFileSync } from "node:fs";
import { childrenOf, descendantsOf, rssMb } from "../lib/procs";

export interface Sample {
  at: number;
  /** Sum over every workerd process. */
  workerdMb: number;
  workerd: { pid: number; role: "runtime" | "proxy"; mb: number }[];
  bridgeMb: number;
  /** Direct children of the bridge: [pid, comm]. */
  children: [number, string][];
  /** Open Streamable HTTP sessions in the bridge, when /metrics answered. */
  bridgeSessions?: number;
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}

export function workerdPids(wranglerPid: number): number[] {
  return descendantsOf(wranglerPid).filter((pid) => comm(pid).startsWith("workerd"));
}

/** RSS MB of the workerd process with `role` in a sample (0 when absent). */
export const roleMb = (s: Sample, role: "runtime" | "proxy") => s.workerd.filter((w) => w.role === role).reduce((sum, w) => sum + w.mb, 0);

export async function takeSample(wranglerPid: number, bridge: { pid: number; url: string; token: string }): Promise<Sample> {
  const workerd = workerdPids(wranglerPid).map((pid) => ({
    pid,
    role: cmdline(pid).includes("--inspector-addr") ? ("runtime" as const) : ("proxy" as const),
    mb: rssMb(pid) ?? 0,
  }));
  const children = childrenOf(bridge.pid).map((pid): [number, string] => [pid, comm(pid)]);
  let bridgeSessions: number | undefined;
  try {
    const res = await fetch(`${bridge.url}/metrics`, { headers: { authorization: `Bearer ${bridge.token}` }, signal: AbortSignal.timeout(3_000) });
    const body = (await res.json()) as { sessions?: { streamable?: number } };
    bridgeSessions = body.sessions?.streamable;
  } catch {
    // not answered in time: left out of this sample
  }
  return {
    at: Date.now(),
    workerdMb: workerd.reduce((sum, w) => sum + w.mb, 0),
    workerd,
    bridgeMb: rssMb(bridge.pid) ?? 0,
    children,
    bridgeSessions,
  };
}

export const mb = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? "-" : v.toFixed(1));
