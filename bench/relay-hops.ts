// `npm run bench:relay-hops`: where a tool call's time goes on each path of bench:relay,
// leg by leg. The bridge processes run with bench/lib/socket-trace.mjs preloaded, which
// timestamps every socket read and write; this process times each call. Per call:
//   worker out:  the call sent → the bridge has the request (HTTP: its server's `request`
//                event; relay: the frame's bytes on the WebSocket);
//   bridge in:   → the request written to the child's stdin;
//   child:       → the child's answer read;
//   bridge out:  → the answer's last write to the Worker;
//   worker back: → the call's answer here.
// "worker" legs hold everything between this process and the bridge (wrangler dev's proxy,
// the Worker, the session and, on the relay, the user's account object). The paths
// alternate call by call; each leg's median difference over the pairs is printed.
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pairMachine } from "../tests/fixtures/paired-machine";
import { startStack } from "../tests/fixtures/stack";
import { everythingBin } from "../tests/fixtures/servers";
import { repoRoot } from "./lib/procs";

const WARMUP_PAIRS = 60;
const PAIRS = 300;

type Event = [number, "in" | "out" | "req", string, number];
interface Call {
  relay: boolean;
  start: number;
  end: number;
}
const LEGS = ["total", "workerOut", "bridgeIn", "child", "bridgeOut", "workerBack"] as const;
type Legs = Record<(typeof LEGS)[number], number>;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const clock = () => performance.timeOrigin + performance.now();

function legsOf(call: Call, events: Event[]): Legs | undefined {
  const during = events.filter((e) => e[0] >= call.start && e[0] <= call.end);
  const arrived = call.relay ? during.find((e) => e[1] === "in" && e[2].startsWith("tcp")) : during.find((e) => e[1] === "req");
  // fds 1 and 2 are the process's own output; the child's pipes are the others.
  const toChild = during.find((e) => e[1] === "out" && e[2].startsWith("pipe") && e[2] !== "pipe:1" && e[2] !== "pipe:2");
  const fromChild = during.find((e) => e[1] === "in" && e[2].startsWith("pipe"));
  const answered = during.filter((e) => e[1] === "out" && e[2].startsWith("tcp")).at(-1);
  if (!arrived || !toChild || !fromChild || !answered) return undefined;
  return {
    total: call.end - call.start,
    workerOut: arrived[0] - call.start,
    bridgeIn: toChild[0] - arrived[0],
    child: fromChild[0] - toChild[0],
    bridgeOut: answered[0] - fromChild[0],
    workerBack: call.end - answered[0],
  };
}

async function main(): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), "relay-hops-"));
  process.env.HOPS_OUT = out;
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --import ${join(repoRoot, "bench", "lib", "socket-trace.mjs")}`.trim();
  const stack = await startStack({
    model: false,
    vars: { RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000" },
    mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"] } },
  });
  const machine = await pairMachine(stack.url, "", "laptop");
  const calls: Call[] = [];
  const pids = { http: stack.bridge.pid, relay: machine.process.pid ?? 0 };
  try {
    const call = async (relay: boolean): Promise<void> => {
      const start = clock();
      const response = await fetch(`${stack.url}/api/tools/${relay ? "laptop-everything.echo" : "everything.echo"}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ arguments: { message: "x" }, approved: true }),
      });
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      await response.json();
      calls.push({ relay, start, end: clock() });
    };
    for (let i = 0; i < WARMUP_PAIRS + PAIRS; i++) {
      await call(i % 2 === 1);
      await call(i % 2 === 0);
    }
  } finally {
    await machine.stop();
    await stack.stop();
  }
  const eventsOf = (pid: number): Event[] =>
    readdirSync(out).includes(`${pid}.jsonl`)
      ? readFileSync(join(out, `${pid}.jsonl`), "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as Event)
      : [];
  const events = { http: eventsOf(pids.http), relay: eventsOf(pids.relay) };
  const rows = { http: [] as Legs[], relay: [] as Legs[], diff: [] as Legs[] };
  const measured = calls.slice(WARMUP_PAIRS * 2);
  for (let i = 0; i + 1 < measured.length; i += 2) {
    const [a, b] = [measured[i], measured[i + 1]];
    if (!a || !b) continue;
    const [h, r] = a.relay ? [b, a] : [a, b];
    const http = legsOf(h, events.http);
    const relay = legsOf(r, events.relay);
    if (!http || !relay) continue;
    rows.http.push(http);
    rows.relay.push(relay);
    rows.diff.push(Object.fromEntries(LEGS.map((leg) => [leg, relay[leg] - http[leg]])) as Legs);
  }
  console.log(`${rows.diff.length} pairs traced (of ${PAIRS}), medians in ms`);
  console.log(`${"leg".padEnd(12)}${"HTTP".padStart(9)}${"relay".padStart(9)}${"relay − HTTP (pairs)".padStart(22)}`);
  for (const leg of LEGS) {
    const cell = (rowsOf: Legs[]) => median(rowsOf.map((row) => row[leg])).toFixed(3);
    console.log(`${leg.padEnd(12)}${cell(rows.http).padStart(9)}${cell(rows.relay).padStart(9)}${cell(rows.diff).padStart(22)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
