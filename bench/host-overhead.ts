// What McpHost.callTool adds over a bare SDK Client.callTool against the same
// in-process McpServer (InMemoryTransport, so no I/O: the difference is the
// host's own work: name routing, argument validation, breaker, metrics, abort
// wiring). The variants run in interleaved blocks, in rotating order, so drift
// over the run (GC pauses, JIT tiering, CPU frequency) hits every variant alike
// instead of penalising whichever ran last. Run: npm run bench:host
// The baseline is the SDK the host itself runs on (2.x client); the echo server is the 1.x SDK's McpServer.
import { Client } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { StdioServerConfig } from "../src/shared/mcp-config/config";
import { McpHost } from "../src/mcp/host";

const WARMUP = 500;
const BLOCKS = 10;
const BLOCK_SIZE = 500; // BLOCKS × BLOCK_SIZE = 5,000 measured calls per variant
const GOAL_MS = 0.1;
const ARGS = { message: "hello from the benchmark", count: 2 };

/** A fresh echo server, connected to the returned client-side transport. */
function startServer(): InMemoryTransport {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes a message, optionally repeated.", inputSchema: { message: z.string(), count: z.number().int().optional() } },
    async ({ message, count }) => ({ content: [{ type: "text", text: message.repeat(count ?? 1) }] }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // Messages sent before the server side starts are queued by InMemoryTransport.
  server.connect(serverSide).catch((error: unknown) => {
    console.error("server failed to connect:", error);
    process.exit(1);
  });
  return clientSide;
}

const benchServer: StdioServerConfig = {
  name: "bench",
  transport: "stdio",
  command: "unused", // placeholder: the in-memory factory below ignores it
  args: [],
  env: {},
  disabled: false,
  timeoutMs: 60_000,
  alwaysAllow: [],
  dependencies: [],
  excludeTools: [],
};

type Call = () => Promise<unknown>;
interface Variant {
  name: string;
  call: Call;
  baseline?: string; // the variant this one is compared with
  samples: number[];
}

async function measure(call: Call, n: number, into?: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call();
    const ms = performance.now() - start;
    into?.push(ms);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

async function main(): Promise<void> {
  const client = new Client({ name: "bench-baseline", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  await client.connect(startServer());

  const host = new McpHost({ transports: () => [{ kind: "in-memory", create: () => ({ kind: "in-memory", transport: startServer() }) }] });
  const report = await host.connect({ servers: [benchServer] });
  if (report.failed.length > 0) throw new Error(`the bench server did not start: ${JSON.stringify(report.failed)}`);

  // The host gets one long-lived signal, as a chat session passes; the bare SDK gets a
  // fresh one per call, as the host makes one per request (src/mcp/call.ts linkSignal).
  const session = new AbortController();
  const onProgress = (): void => undefined;
  const variants: Variant[] = [
    { name: "sdk Client.callTool", call: () => client.callTool({ name: "echo", arguments: ARGS }), samples: [] },
    { name: "McpHost.callTool", baseline: "sdk Client.callTool", call: () => host.callTool("bench.echo", ARGS), samples: [] },
    {
      name: "sdk + signal/progress",
      call: () => client.callTool({ name: "echo", arguments: ARGS }, { signal: new AbortController().signal, onprogress: onProgress }),
      samples: [],
    },
    {
      name: "host + signal/progress",
      baseline: "sdk + signal/progress",
      call: () => host.callTool("bench.echo", ARGS, { signal: session.signal, onProgress }),
      samples: [],
    },
  ];

  for (const v of variants) await measure(v.call, WARMUP);
  for (let block = 0; block < BLOCKS; block++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(block + k) % variants.length]!; // rotate who goes first
      await measure(v.call, BLOCK_SIZE, v.samples);
    }
  }

  const medians = new Map<string, number>();
  const rows = variants.map((v) => {
    const sorted = [...v.samples].sort((a, b) => a - b);
    const median = percentile(sorted, 0.5);
    medians.set(v.name, median);
    return { v, median, p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99) };
  });

  const f4 = (ms: number): string => ms.toFixed(4).padStart(8);
  console.log(`host overhead: ${WARMUP} warm-up + ${BLOCKS}×${BLOCK_SIZE} interleaved calls per variant (node ${process.version})\n`);
  console.log(`${"variant".padEnd(24)}  median ms    p95 ms    p99 ms   overhead ms   overhead µs   ratio`);
  const verdicts: string[] = [];
  for (const { v, median, p95, p99 } of rows) {
    let extra = "";
    if (v.baseline) {
      const base = medians.get(v.baseline) ?? NaN;
      const overhead = median - base;
      extra = `   ${f4(overhead).padStart(11)}   ${(overhead * 1000).toFixed(1).padStart(11)}   ${(median / base).toFixed(2).padStart(5)}x`;
      verdicts.push(`${v.name} vs ${v.baseline}: ${overhead < GOAL_MS ? "MET" : "NOT MET"} (${(overhead * 1000).toFixed(1)} µs)`);
    }
    console.log(`${v.name.padEnd(24)}   ${f4(median)}  ${f4(p95)}  ${f4(p99)}${extra}`);
  }
  console.log(`\ngoal: host adds under ${GOAL_MS} ms per call (median)`);
  for (const line of verdicts) console.log(`  ${line}`);

  await Promise.all([client.close(), host.close()]);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
