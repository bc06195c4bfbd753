// The two MCP revisions the bridge serves on one endpoint, measured against each other on
// the same bridge process in the same run (bench/bridge.ts): echo calls as raw POSTs over
// one keep-alive undici Pool, 2025-11-25 on an initialized session (Mcp-Session-Id) and
// 2026-07-28 stateless (the per-request _meta envelope and the Mcp-Method/Mcp-Name
// headers, no session); and server-everything's elicitation tool answered at once by
// each era's SDK client: the v1 client on a 2025 session (the question comes as a
// request on the call's SSE stream) and the v2 client pinned to 2026 (an input_required
// round: the answer goes with a retry of the call). Rounds alternate the eras, order
// rotated, so drift of the machine hits both alike.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Pool } from "undici";
import { type Caller, startFloor } from "./floor";
import { connect, ECHO_ARGS, inRounds, median, parseBody, percentile, pool, type Throughput } from "./measure";
import { withTimeout } from "./procs";

const MODERN = "2026-07-28";
const ROUNDS = { seq: 10, perRound: 50, load: 5, loadCalls: 400, inFlight: 50, elicit: 5, elicitPerRound: 20 };

export interface EraRow {
  name: string;
  samples: number[];
  rates: Throughput[];
  elicit: number[];
  failed?: string;
}

/** The floor's two parts, timed in the same latency rounds as the eras (bench/lib/floor.ts). */
export interface FloorRow {
  name: string;
  samples: number[];
  failed?: string;
}

export interface ErasResult {
  eras: EraRow[];
  /** Raw stdio echo on the server itself, then the bare loopback HTTP round trip. */
  floor: FloorRow[];
}

function rawCaller(http: Pool, path: string, headers: Record<string, string>, params: (id: number) => Record<string, unknown>): Caller {
  let nextId = 1_000_000;
  return async () => {
    const id = nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: params(id) });
    const res = await http.request({ path, method: "POST", headers, body });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 120)}`);
    const reply = parseBody(String(res.headers["content-type"] ?? ""), text).find((m) => (m as { id?: unknown }).id === id) as { result?: unknown } | undefined;
    if (!reply?.result) throw new Error(`no result: ${text.slice(0, 120)}`);
  };
}

async function timed(call: Caller, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * Both eras against the bridge at `url` (its /servers/everything/mcp); `headers` carry the
 * bearer token; `server` is the stdio command the bridge runs there, for the floor.
 */
export async function measureEras(url: string, headers: Record<string, string>, server: { command: string; args: string[] }): Promise<ErasResult> {
  const target = new URL(url);
  const http = new Pool(target.origin, { connections: ROUNDS.inFlight, pipelining: 1, keepAliveTimeout: 30_000 });
  const base = { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const session = await connect({ kind: "http", url, headers });
  const legacy = rawCaller(
    http,
    target.pathname,
    { ...base, "mcp-session-id": session.sessionId ?? "", "mcp-protocol-version": session.protocolVersion ?? "2025-11-25" },
    () => ({
      name: "echo",
      arguments: ECHO_ARGS,
    }),
  );
  const envelope = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };
  const modern = rawCaller(http, target.pathname, { ...base, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "echo" }, () => ({
    name: "echo",
    arguments: ECHO_ARGS,
    _meta: envelope,
  }));
  const answer = { action: "accept" as const, content: { name: "bench", check: true } };
  // The v1 client declares capabilities at initialize: a session of its own, opened with elicitation.
  const asking = await connectElicitingV1(url, headers, answer);
  const v2 = new ClientV2({ name: "bench-v2", version: "1" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } } });
  v2.setRequestHandler("elicitation/create", async () => answer);
  await withTimeout(v2.connect(new TransportV2(target, { requestInit: { headers } })), 20_000, "v2 connect");
  const elicitTool = { name: "trigger-elicitation-request", arguments: {} };
  const rows: Array<EraRow & { call: Caller; elicitOnce: Caller }> = [
    { name: "2025-11-25 sessionful", samples: [], rates: [], elicit: [], call: legacy, elicitOnce: async () => void (await asking.callTool(elicitTool)) },
    { name: "2026-07-28 stateless", samples: [], rates: [], elicit: [], call: modern, elicitOnce: async () => void (await v2.callTool(elicitTool)) },
  ];
  const floor = await startFloor(server.command, server.args);
  const floorRows: Array<FloorRow & { call: Caller }> = [
    { name: "stdio direct, raw", samples: [], call: floor.stdio },
    { name: "bare keep-alive HTTP round trip", samples: [], call: floor.http },
  ];
  const failed = <R extends { failed?: string }>(row: R, message: string) => {
    row.failed ??= message;
  };
  const skip = <R extends { failed?: string }>(row: R) => row.failed !== undefined;
  try {
    await inRounds({
      items: floorRows,
      rounds: 1,
      label: "floor warm-up",
      budgetMs: 60_000,
      skip,
      failed,
      step: async (r) => void (await timed(r.call, 2_000)),
    });
    await inRounds({
      items: rows,
      rounds: 1,
      label: "eras warm-up",
      budgetMs: 60_000,
      skip,
      failed,
      step: async (r) => void (await pool(2_000, ROUNDS.inFlight, 30_000, r.call)),
    });
    // The floor's parts in the same rounds as the eras, so a drift of the machine shows in both.
    await inRounds({
      items: [...rows, ...floorRows],
      rounds: ROUNDS.seq,
      label: "floor and eras latency",
      budgetMs: 30_000,
      skip,
      failed,
      step: async (r) => void r.samples.push(...(await timed(r.call, ROUNDS.perRound))),
    });
    await inRounds({
      items: rows,
      rounds: ROUNDS.load,
      label: "eras throughput",
      budgetMs: 30_000,
      skip,
      failed,
      step: async (r) => void r.rates.push(await pool(ROUNDS.loadCalls, ROUNDS.inFlight, 20_000, r.call)),
    });
    await inRounds({
      items: rows,
      rounds: 1,
      label: "elicitation warm-up",
      budgetMs: 60_000,
      skip,
      failed,
      step: async (r) => void (await timed(r.elicitOnce, 20)),
    });
    await inRounds({
      items: rows,
      rounds: ROUNDS.elicit,
      label: "elicitation",
      budgetMs: 60_000,
      skip,
      failed,
      step: async (r) => void r.elicit.push(...(await timed(r.elicitOnce, ROUNDS.elicitPerRound))),
    });
  } finally {
    await Promise.allSettled([session.close(), asking.close(), v2.close(), http.destroy(), floor.close()]);
  }
  return {
    eras: rows.map(({ name, samples, rates, elicit, failed: f }) => ({ name, samples, rates, elicit, ...(f ? { failed: f } : {}) })),
    floor: floorRows.map(({ name, samples, failed: f }) => ({ name, samples, ...(f ? { failed: f } : {}) })),
  };
}

async function connectElicitingV1(
  url: string,
  headers: Record<string, string>,
  answer: unknown,
): Promise<{ callTool: (p: { name: string; arguments: Record<string, unknown> }) => Promise<unknown>; close(): Promise<void> }> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const client = new Client({ name: "bench-v1-elicit", version: "1" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => answer as { action: "accept" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await withTimeout(client.connect(transport), 20_000, "v1 connect");
  return {
    callTool: (p) => client.callTool(p),
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

export function printEras({ eras: rows, floor }: ErasResult): void {
  const p = (xs: number[], q: number) =>
    xs.length
      ? percentile(
          [...xs].sort((a, b) => a - b),
          q,
        ).toFixed(2)
      : "-";
  const cps = (runs: Throughput[]) => {
    const ok = runs.reduce((n, r) => n + r.ok, 0);
    const s = runs.reduce((n, r) => n + r.seconds, 0);
    return s > 0 ? ok / s : Number.NaN;
  };
  console.log(`\n### Both revisions on one bridge endpoint (same process, rounds alternating)\n`);
  console.log(`| revision | echo p50 ms | echo p99 ms | calls/s, ${ROUNDS.inFlight} in flight | elicitation answered at once, p50 ms | errors / failed |`);
  console.log("|---|---|---|---|---|---|");
  for (const r of rows) {
    const errors = r.rates.reduce((n, t) => n + t.errors, 0);
    console.log(
      `| ${r.name} | ${p(r.samples, 50)} | ${p(r.samples, 99)} | ${cps(r.rates).toFixed(0)} | ${p(r.elicit, 50)} | ${errors}${r.failed ? ` / ${r.failed}` : ""} |`,
    );
  }
  const [old, now] = rows;
  if (!old || !now) return;
  const ratio = (a: number[], b: number[]) => (a.length && b.length ? (median(b) / median(a)).toFixed(2) : "n/a");
  console.log(`- 2026 stateless / 2025 sessionful: echo p50 ${ratio(old.samples, now.samples)}x, throughput ${(cps(now.rates) / cps(old.rates)).toFixed(2)}x`);
  const [stdio, http] = floor;
  if (stdio?.samples.length && http?.samples.length) {
    const floorP50 = median(stdio.samples) + median(http.samples);
    console.log(
      `- floor (issue 35): stdio direct, raw p50 ${median(stdio.samples).toFixed(3)} ms + bare keep-alive HTTP round trip p50 ${median(http.samples).toFixed(3)} ms = ${floorP50.toFixed(3)} ms`,
    );
    for (const r of rows) {
      if (!r.samples.length) continue;
      const x = median(r.samples) / floorP50;
      console.log(`  - ${r.name} p50 ${median(r.samples).toFixed(3)} ms / floor = ${x.toFixed(2)}x (goal ≤ 1.5): ${x <= 1.5 ? "MET" : "NOT MET"}`);
    }
  } else console.log(`- floor not measured: ${stdio?.failed ?? http?.failed ?? "no samples"}`);
  const elicitRatio = old.elicit.length && now.elicit.length ? median(now.elicit) / median(old.elicit) : undefined;
  console.log(
    `- input_required round / 2025 elicitation, p50: ${elicitRatio?.toFixed(2) ?? "n/a"}x (goal ≤ 1.2): ${elicitRatio === undefined ? "n/a" : elicitRatio <= 1.2 ? "MET" : "NOT MET"}`,
  );
}
