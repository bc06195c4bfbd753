// A warm tool call through McpHost on a 2026-07-28 connection against one on a 2025
// connection to the same server process: the SDK's v2 server (tests/fixtures/v2-server.mjs)
// with its default posture (2026 plus the stateless 2025 fallback), over Streamable HTTP on
// loopback. The 2025 host is told the server is legacy (a remembered verdict, as a session
// gives it), so it skips the probe and runs `initialize`; the 2026 host negotiates with
// `auto`. Rounds alternate the eras, order rotated, so drift of the machine hits both
// alike; the 2025 connection is the baseline. Goal: 2026 at most 1.1x. Run: npm run bench:eras
import { McpHost } from "../src/mcp/host";
import type { EraVerdict } from "../src/mcp/protocol-era";
import { workerTransports } from "../src/mcp/transports";
import { startV2Server } from "../tests/fixtures/v2-servers";
import { httpServer } from "../tests/fixtures/servers";
import { median, percentile } from "./lib/measure";

const quick = process.argv.includes("--quick");
const WARMUP = quick ? 50 : 200;
const ROUNDS = quick ? 4 : 10;
const PER_ROUND = quick ? 50 : 200;
const GOAL = 1.1;

async function hostFor(url: string, remembered?: EraVerdict): Promise<McpHost> {
  const host = new McpHost({
    transports: workerTransports(),
    ...(remembered ? { eras: { remembered: () => remembered, found: () => undefined } } : {}),
  });
  const report = await host.connect({ servers: [httpServer("v2", url)] });
  if (report.failed.length > 0) throw new Error(`connect failed: ${JSON.stringify(report.failed)}`);
  return host;
}

async function timeCalls(host: McpHost, n: number, into: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const result = await host.callTool("v2.echo", { text: "hello from the era benchmark" });
    into.push(performance.now() - started);
    if (result.isError) throw new Error(`echo failed: ${JSON.stringify(result.content)}`);
  }
}

const server = await startV2Server("both");
try {
  const legacy = await hostFor(server.url, { era: "legacy", protocolVersion: "2025-11-25", at: Date.now() });
  const modern = await hostFor(server.url);
  const eras = [
    { name: "2025-11-25 (initialize, stateless fallback)", host: legacy, samples: [] as number[] },
    { name: "2026-07-28 (server/discover, envelope)", host: modern, samples: [] as number[] },
  ];
  for (const era of eras) {
    const protocol = era.host.servers()[0]?.protocol;
    if (!era.name.startsWith(protocol ?? "?")) throw new Error(`${era.name}: the connection speaks ${protocol}`);
    await timeCalls(era.host, WARMUP, []);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? eras : [...eras].reverse();
    for (const era of order) await timeCalls(era.host, PER_ROUND, era.samples);
  }
  const [base, modernRow] = eras.map((era) => {
    const sorted = [...era.samples].sort((a, b) => a - b);
    return { name: era.name, median: median(sorted), p90: percentile(sorted, 90), n: sorted.length };
  });
  if (!base || !modernRow) throw new Error("no rows");
  console.log(`warm McpHost.callTool to one v2 server, ${ROUNDS} rounds x ${PER_ROUND} calls per era, alternating (ms)`);
  for (const row of [base, modernRow]) {
    const ratio = row.median / base.median;
    console.log(`${row.name.padEnd(46)} median ${row.median.toFixed(3)}  p90 ${row.p90.toFixed(3)}  n ${row.n}  ${ratio.toFixed(2)}x`);
  }
  const ratio = modernRow.median / base.median;
  console.log(`2026 vs 2025: ${ratio.toFixed(2)}x (goal at most ${GOAL}x): ${ratio <= GOAL ? "met" : "NOT met"}`);
  await Promise.all(eras.map((era) => era.host.close()));
} finally {
  await server.stop();
}
