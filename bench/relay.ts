// `npm run bench:relay`: the same tool call (server-everything's `echo`) reached two ways
// from one `wrangler dev`, in the same run, on loopback:
//   - BRIDGE_URL: the Worker's session → HTTP → the local bridge → the child;
//   - a paired machine: the session → the user's UserAccount object → the machine's one
//     WebSocket → `mcp-local-bridge connect` → its in-memory connection → the child.
// Both are driven as direct calls (POST /api/tools/{name}) of one session, sequentially,
// in rounds that alternate the path first (this machine's speed drifts), after a warm-up.
// Prints p50/p99 of each and the difference (goal: relay p50 ≤ HTTP p50 + 1 ms). Then 20
// sessions of the same user call the machine at once, and the TCP connections of the
// connect process to the Worker are counted (goal: 1 socket for all).
import { execFileSync } from "node:child_process";
import { pairMachine } from "../tests/fixtures/paired-machine";
import { startStack } from "../tests/fixtures/stack";
import { everythingBin } from "../tests/fixtures/servers";

const WARMUP = 100;
const ROUNDS = 10;
const PER_ROUND = 30;
const SESSIONS = 20;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function main(): Promise<void> {
  const stack = await startStack({
    model: false,
    vars: { RATE_LIMIT_PER_MINUTE: "10000", RATE_LIMIT_BURST: "1000" },
    mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"] } },
  });
  let machine: Awaited<ReturnType<typeof pairMachine>> | undefined;
  try {
    machine = await pairMachine(stack.url, "", "laptop");
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
    const times: Record<string, number[]> = { [http]: [], [relay]: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [http, relay] : [relay, http];
      for (const tool of order) for (let i = 0; i < PER_ROUND; i++) times[tool]?.push(await call(tool));
    }
    const httpP50 = percentile(times[http] ?? [], 50);
    const relayP50 = percentile(times[relay] ?? [], 50);
    console.log(`calls per path: ${ROUNDS * PER_ROUND} (after ${WARMUP} warm-up), sequential, alternating rounds`);
    console.log(`BRIDGE_URL (HTTP)   p50 ${httpP50.toFixed(2)} ms  p99 ${percentile(times[http] ?? [], 99).toFixed(2)} ms`);
    console.log(`paired machine      p50 ${relayP50.toFixed(2)} ms  p99 ${percentile(times[relay] ?? [], 99).toFixed(2)} ms`);
    console.log(`relay − HTTP        p50 ${(relayP50 - httpP50).toFixed(2)} ms (goal ≤ +1 ms)`);

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
  } finally {
    await machine?.stop();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
