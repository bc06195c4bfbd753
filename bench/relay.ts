// `npm run bench:relay`: the same tool call (server-everything's `echo`) reached two ways
// from one `wrangler dev`, in the same run, on loopback:
//   - BRIDGE_URL: the Worker's session → HTTP → the local bridge → the child;
//   - a paired machine: the session → the user's UserAccount object → the machine's one
//     WebSocket → `mcp-local-bridge connect`, which hands the request to its handler → the child.
// Both are driven as direct calls (POST /api/tools/{name}) of one session, sequentially,
// after a warm-up. The paths alternate call by call (each pair in turn order flipped), in
// blocks: this machine is shared and its speed drifts by more than the goal within
// seconds, so each block's p50s are taken over the same seconds for both paths. Prints
// each block, then p50/p99 of each path over all blocks, the median of the blocks'
// differences and of the pairs' differences (goal: relay p50 ≤ HTTP p50 + 1 ms). Wall time
// on a loaded machine is mostly waiting for a core, so the CPU each call costs workerd and
// the bridge process that served it (its threads' schedstat, read around each call) is
// printed too: it hardly moves with the load. Then the account object's hop on its own:
// the same calls to an echo server answered in this process (bench/lib/relay-fakes.ts),
// once over HTTP and once as a paired machine over the relay's WebSocket, so no bridge and
// no child are in the way; each call's Worker legs (call sent → request at the server, and
// answer sent → call answered) are timed on this process's clock, and relay − HTTP of
// those legs is what the account object adds. Then 20 sessions of the same user call the
// machine at once, and the TCP connections of the connect process to the Worker are
// counted (goal: 1 socket for all).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { pairMachine } from "../tests/fixtures/paired-machine";
import { startStack } from "../tests/fixtures/stack";
import { everythingBin } from "../tests/fixtures/servers";
import { cpuTimeNs, descendantsOf } from "./lib/procs";
import { clock, connectFakeMachine, startFakeHttp, type FakeEnd, type Served } from "./lib/relay-fakes";

const WARMUP = 100;
const BLOCKS = 7;
const PAIRS_PER_BLOCK = 50;
const CPU_PAIRS = 150;
const HOP_PAIRS = 200;
const SESSIONS = 20;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function main(): Promise<void> {
  const fakeHttp = await startFakeHttp();
  const stack = await startStack({
    model: false,
    vars: { RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000" },
    mcpServers: {
      everything: { command: process.execPath, args: [everythingBin, "stdio"] },
      // An Authorization header of its own, as a bridged server needs no sign-in: no OAuth provider on its path either.
      fake: { url: fakeHttp.url, headers: { authorization: "Bearer bench" } },
    },
  });
  let machine: Awaited<ReturnType<typeof pairMachine>> | undefined;
  let fakeMachine: FakeEnd | undefined;
  try {
    machine = await pairMachine(stack.url, "", "laptop");
    fakeMachine = await connectFakeMachine(stack.url, "fakebox", "echo");
    // Without a sessionId: the caller's own console session.
    const call = async (tool: string, sessionId?: string): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${stack.url}/api/tools/${tool}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ arguments: { message: "x" }, approved: true, ...(sessionId ? { sessionId } : {}) }),
      });
      const body = (await response.json()) as { result?: unknown };
      if (!response.ok || !body.result) throw new Error(`${tool}: ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
      return performance.now() - started;
    };
    const http = "everything.echo";
    const relay = "laptop-everything.echo";
    for (let i = 0; i < WARMUP; i++) {
      await call(http);
      await call(relay);
    }
    const all = { http: [] as number[], relay: [] as number[] };
    const blockDeltas: number[] = [];
    const pairDeltas: number[] = [];
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    for (let block = 0; block < BLOCKS; block++) {
      const times = { http: [] as number[], relay: [] as number[] };
      for (let i = 0; i < PAIRS_PER_BLOCK; i++) {
        const relayFirst = (block + i) % 2 === 1;
        const first = await call(relayFirst ? relay : http);
        const second = await call(relayFirst ? http : relay);
        const [h, r] = relayFirst ? [second, first] : [first, second];
        times.http.push(h);
        times.relay.push(r);
        pairDeltas.push(r - h);
      }
      const delta = percentile(times.relay, 50) - percentile(times.http, 50);
      blockDeltas.push(delta);
      all.http.push(...times.http);
      all.relay.push(...times.relay);
      console.log(`block ${block + 1}: HTTP p50 ${ms(percentile(times.http, 50))}  relay p50 ${ms(percentile(times.relay, 50))}  relay − HTTP ${ms(delta)}`);
    }
    const httpP50 = percentile(all.http, 50);
    const relayP50 = percentile(all.relay, 50);
    console.log(`calls per path: ${BLOCKS * PAIRS_PER_BLOCK} (after ${WARMUP} warm-up), sequential, alternating call by call`);
    console.log(`BRIDGE_URL (HTTP)   p50 ${ms(httpP50)}  p99 ${ms(percentile(all.http, 99))}`);
    console.log(`paired machine      p50 ${ms(relayP50)}  p99 ${ms(percentile(all.relay, 99))}  (${(relayP50 / httpP50).toFixed(3)}× HTTP)`);
    console.log(
      `relay − HTTP        p50 of all ${ms(relayP50 - httpP50)}, median of blocks ${ms(percentile(blockDeltas, 50))}, median of pairs ${ms(percentile(pairDeltas, 50))} (goal ≤ +1 ms)`,
    );

    // CPU per call: workerd (every thread) and the bridge process that served the call (its children, the same server, left out).
    const workerd = descendantsOf(process.pid).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd";
      } catch {
        return false;
      }
    });
    const workerdNs = () => workerd.reduce((sum, pid) => sum + cpuTimeNs(pid), 0);
    const servedBy = { http: stack.bridge.pid, relay: machine.process.pid ?? 0 };
    const cpu = { http: { worker: [] as number[], bridge: [] as number[] }, relay: { worker: [] as number[], bridge: [] as number[] } };
    for (let i = 0; i < CPU_PAIRS * 2; i++) {
      const path = i % 4 === 0 || i % 4 === 3 ? "http" : "relay";
      const [w0, b0] = [workerdNs(), cpuTimeNs(servedBy[path])];
      await call(path === "http" ? http : relay);
      cpu[path].worker.push((workerdNs() - w0) / 1e6);
      cpu[path].bridge.push((cpuTimeNs(servedBy[path]) - b0) / 1e6);
    }
    const cpuLine = (path: "http" | "relay") => `workerd ${ms(percentile(cpu[path].worker, 50))} + bridge ${ms(percentile(cpu[path].bridge, 50))}`;
    console.log(`CPU per call (p50, ${CPU_PAIRS} of each, ${workerd.length} workerd process(es)): HTTP ${cpuLine("http")}; relay ${cpuLine("relay")}`);
    console.log(
      `relay − HTTP        CPU p50: workerd ${ms(percentile(cpu.relay.worker, 50) - percentile(cpu.http.worker, 50))}, bridge ${ms(percentile(cpu.relay.bridge, 50) - percentile(cpu.http.bridge, 50))}`,
    );

    // The account object's hop on its own: both ends answered here, each call's Worker legs timed on this clock.
    const ends = { http: fakeHttp, relay: fakeMachine };
    const tools = { http: "fake.echo", relay: "fakebox-echo.echo" };
    for (let i = 0; i < WARMUP; i++) {
      await call(tools.http);
      await call(tools.relay);
    }
    const hop = { http: [] as number[], relay: [] as number[], diff: [] as number[], cpu: { http: [] as number[], relay: [] as number[] } };
    const timed = async (path: "http" | "relay"): Promise<number> => {
      const [start, w0] = [clock(), workerdNs()];
      await call(tools[path]);
      const [end, w1] = [clock(), workerdNs()];
      hop.cpu[path].push((w1 - w0) / 1e6);
      const served = ends[path].served.filter((s) => s.arrived >= start && s.answered <= end);
      // One request per call once connected; a call that carried another too (a reconnect) is left out, with its pair.
      const legs = served.length === 1 ? workerLegs(start, end, served[0] as Served) : Number.NaN;
      hop[path].push(legs);
      return legs;
    };
    for (let i = 0; i < HOP_PAIRS; i++) {
      const relayFirst = i % 2 === 1;
      const first = await timed(relayFirst ? "relay" : "http");
      const second = await timed(relayFirst ? "http" : "relay");
      hop.diff.push(relayFirst ? first - second : second - first);
    }
    const kept = (values: number[]) => values.filter((v) => !Number.isNaN(v));
    console.log(
      `Worker legs, ends answered here (p50, ${kept(hop.diff).length} pairs): HTTP ${ms(percentile(kept(hop.http), 50))}, relay ${ms(percentile(kept(hop.relay), 50))}; workerd CPU HTTP ${ms(percentile(hop.cpu.http, 50))}, relay ${ms(percentile(hop.cpu.relay, 50))}`,
    );
    console.log(
      `account-object hop  wall p50 (median of pairs) ${ms(percentile(kept(hop.diff), 50))}, workerd CPU p50 ${ms(percentile(hop.cpu.relay, 50) - percentile(hop.cpu.http, 50))}`,
    );

    // Twenty sessions of the same user call the machine at once: one socket carries them all.
    const sessions = await Promise.all(
      Array.from(
        { length: SESSIONS },
        async () =>
          (
            (await (await fetch(`${stack.url}/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as {
              id: string;
            }
          ).id,
      ),
    );
    await Promise.all(sessions.map((id) => call(relay, id)));
    const pid = machine.process.pid ?? 0;
    const port = new URL(stack.url).port;
    const sockets = execFileSync("ss", ["-tnpH", "state", "established", `( dport = :${port} )`], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes(`pid=${pid},`)).length;
    console.log(`${SESSIONS} sessions of one user called the machine at once: ${sockets} TCP connection(s) from the connect process to the Worker`);

    // The verdict in one line. Wall time on a shared machine drifts by more than the goal; the CPU on the call's path does not.
    const pathCpu = (path: "http" | "relay") => percentile(cpu[path].worker, 50) + percentile(cpu[path].bridge, 50);
    const extraCpu = pathCpu("relay") - pathCpu("http");
    console.log(
      `relay − HTTP p50: wall ${ms(percentile(pairDeltas, 50))} (median of pairs), CPU on the call's path ${ms(extraCpu)} (workerd + bridge), the account object's hop alone ${ms(percentile(hop.cpu.relay, 50) - percentile(hop.cpu.http, 50))} CPU / ${ms(percentile(kept(hop.diff), 50))} wall: goal ≤ +1 ms ${extraCpu <= 1 ? "met" : "NOT met"} by CPU, ${percentile(pairDeltas, 50) <= 1 ? "met" : "NOT met"} by wall (HTTP p50 ${ms(httpP50)}: wall resolves 1 ms only on a quiet machine)`,
    );
  } finally {
    await fakeMachine?.stop();
    await machine?.stop();
    await stack.stop();
    await fakeHttp.stop();
  }
}

/** Call sent → request at the server, plus answer sent → call answered. */
const workerLegs = (start: number, end: number, served: Served) => served.arrived - start + (end - served.answered);

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
