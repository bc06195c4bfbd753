// Measurements for bench/bridge.ts, each small enough to be run in rounds that
// alternate between paths: one SDK connect, a batch of sequential echo calls, a batch
// of calls N in flight (raw JSON-RPC POSTs over a persistent undici Pool for HTTP
// paths, the SDK client over stdio for the floor), and many concurrent sessions.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { Pool } from "undici";
import { childrenOf, descendantsOf, errorText, sleep, withTimeout } from "./procs";

export const ECHO_ARGS = { message: "hello from the bridge benchmark" };
const CONNECT_TIMEOUT_MS = 20_000;
const CALL_TIMEOUT_MS = 15_000;

/** Where an MCP client connects: a stdio command, or a Streamable HTTP URL with extra headers. */
export type Target = { kind: "stdio"; command: string; args: string[] } | { kind: "http"; url: string; headers: Record<string, string> };

export interface Connected {
  client: Client;
  sessionId?: string;
  protocolVersion?: string;
  /** Ends the session (DELETE for HTTP, so per-session children can go) and closes. */
  close(): Promise<void>;
}

export async function connect(target: Target): Promise<Connected> {
  const client = new Client({ name: "bench-bridge", version: "1.0.0" }, { capabilities: {} });
  if (target.kind === "stdio") {
    const transport = new StdioClientTransport({ command: target.command, args: target.args, stderr: "ignore" });
    try {
      await withTimeout(client.connect(transport), CONNECT_TIMEOUT_MS, "stdio connect");
    } catch (error) {
      await transport.close().catch(() => undefined);
      throw error;
    }
    return { client, close: () => withTimeout(client.close(), 5_000, "close").catch(() => undefined) };
  }
  const transport = new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers: target.headers } });
  try {
    await withTimeout(client.connect(transport), CONNECT_TIMEOUT_MS, "http connect");
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw error;
  }
  return {
    client,
    sessionId: transport.sessionId,
    protocolVersion: transport.protocolVersion,
    close: async () => {
      await withTimeout(transport.terminateSession(), 5_000, "DELETE session").catch(() => undefined);
      await withTimeout(client.close(), 5_000, "close").catch(() => undefined);
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN;
}

export const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** One fresh connect+initialize round trip in ms; the session is ended afterwards (untimed). */
export async function connectOnce(target: Target): Promise<number> {
  const start = performance.now();
  const connected = await connect(target);
  const ms = performance.now() - start;
  await connected.close();
  return ms;
}

async function echo(client: Client): Promise<void> {
  const result = await client.callTool({ name: "echo", arguments: ECHO_ARGS }, undefined, { timeout: CALL_TIMEOUT_MS });
  if (result.isError) throw new Error(`echo returned isError: ${JSON.stringify(result.content).slice(0, 100)}`);
}

/** Latencies (ms) of `n` sequential echo calls, in call order. */
export async function sequentialSamples(client: Client, n: number, budgetMs: number): Promise<number[]> {
  const deadline = Date.now() + budgetMs;
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    if (Date.now() > deadline) throw new Error(`sequential calls over budget (${samples.length}/${n} done in ${budgetMs} ms)`);
    const start = performance.now();
    await echo(client);
    samples.push(performance.now() - start);
  }
  return samples;
}

export interface Throughput {
  callsPerSecond: number;
  ok: number;
  errors: number;
  seconds: number;
  /** A few distinct error reasons with counts. */
  reasons: string[];
}

/** Runs `total` jobs with `inFlight` at once; stops starting new ones after the budget. Throws if none succeeded. */
export async function pool(total: number, inFlight: number, budgetMs: number, job: (i: number) => Promise<void>): Promise<Throughput> {
  const reasons = new Map<string, number>();
  let next = 0;
  let ok = 0;
  let errors = 0;
  const deadline = Date.now() + budgetMs;
  const start = performance.now();
  const fail = (reason: string) => {
    errors++;
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  };
  const worker = async () => {
    while (next < total) {
      const i = next++;
      if (Date.now() > deadline) {
        fail("not sent: over time budget");
        continue;
      }
      try {
        await job(i);
        ok++;
      } catch (error) {
        fail(errorText(error));
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - start) / 1000;
  const top = [...reasons].slice(0, 4).map(([r, c]) => `${c}× ${r}`);
  if (ok === 0 && total > 0) throw new Error(`no call succeeded: ${top.join("; ")}`);
  return { callsPerSecond: ok / seconds, ok, errors, seconds, reasons: top };
}

/** Several runs as one: total ok calls over total time. */
export function sumThroughput(runs: Throughput[]): Throughput {
  const ok = runs.reduce((n, r) => n + r.ok, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const errors = runs.reduce((n, r) => n + r.errors, 0);
  return { callsPerSecond: seconds > 0 ? ok / seconds : 0, ok, errors, seconds, reasons: [...new Set(runs.flatMap((r) => r.reasons))].slice(0, 4) };
}

/** Something that runs `total` echo calls with `inFlight` at once, repeatedly, on one session. */
export interface Load {
  run(total: number, inFlight: number, budgetMs: number): Promise<Throughput>;
  close(): Promise<void>;
}

/** The floor: the SDK client over stdio. */
function sdkLoad(client: Client): Load {
  return { run: (total, inFlight, budgetMs) => pool(total, inFlight, budgetMs, () => echo(client)), close: async () => undefined };
}

/** JSON-RPC messages in a Streamable HTTP response body, JSON or SSE. */
export function parseBody(contentType: string, text: string): unknown[] {
  if (contentType.includes("text/event-stream")) {
    const messages: unknown[] = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
        .join("\n");
      if (data) messages.push(JSON.parse(data));
    }
    return messages;
  }
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * Raw `tools/call` POSTs on one existing session over one keep-alive undici Pool that
 * lives until close(), so later runs reuse warm connections. Ids start far above the
 * SDK client's own so the two never collide on the shared session.
 */
function rawLoad(session: { url: string; headers: Record<string, string>; sessionId: string; protocolVersion: string }, connections: number): Load {
  const url = new URL(session.url);
  const http = new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: CALL_TIMEOUT_MS, bodyTimeout: CALL_TIMEOUT_MS });
  const headers = {
    ...session.headers,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": session.sessionId,
    "mcp-protocol-version": session.protocolVersion,
  };
  let nextId = 1_000_000;
  const call = async () => {
    const id = nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: ECHO_ARGS } });
    const res = await http.request({ path: url.pathname, method: "POST", headers, body });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 80)}`);
    const type = String(res.headers["content-type"] ?? "");
    const reply = parseBody(type, text).find((m) => typeof m === "object" && m !== null && (m as { id?: unknown }).id === id) as
      | { result?: unknown; error?: { message?: string } }
      | undefined;
    if (!reply) throw new Error(`no response with id in ${type} body`);
    if (!reply.result) throw new Error(`JSON-RPC error: ${reply.error?.message ?? "no result"}`);
  };
  return {
    run: (total, inFlight, budgetMs) => pool(total, inFlight, budgetMs, call),
    close: () => http.destroy().catch(() => undefined),
  };
}

/**
 * Opens `n` sessions (each initialized, one echo call), calls `count` while all are
 * open, then ends them. Returns count's value and how many sessions failed.
 */
export async function manySessions<T>(target: Target, n: number, count: () => T): Promise<{ value: T; failed: string[] }> {
  const open: Connected[] = [];
  const failed: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      try {
        const connected = await connect(target);
        open.push(connected);
        await echo(connected.client);
      } catch (error) {
        failed.push(errorText(error));
      }
    }
    await sleep(500); // let the last session's processes settle
    return { value: count(), failed };
  } finally {
    await Promise.all(open.map((c) => c.close()));
  }
}

/** Children (direct, and all descendants) of `pid` while `n` sessions are open; "failed" if none opened. */
export async function childrenWithSessions(
  target: Target,
  pid: number,
  n: number,
): Promise<{ children: { direct: number; all: number } | "failed"; note?: string }> {
  try {
    const s = await withTimeout(
      manySessions(target, n, () => ({ direct: childrenOf(pid).length, all: descendantsOf(pid).length })),
      90_000,
      `${n} sessions`,
    );
    const note = s.failed.length > 0 ? `${s.failed.length}/${n} sessions failed: ${s.failed[0]}` : undefined;
    return { children: s.failed.length === n ? "failed" : s.value, note };
  } catch (error) {
    return { children: "failed", note: `${n} sessions failed: ${errorText(error)}` };
  }
}

/** One SDK client for sequential calls plus a Load on the same session (raw POSTs for HTTP, the client itself over stdio). */
export interface Session {
  sequential(n: number, budgetMs: number): Promise<number[]>;
  load: Load;
  close(): Promise<void>;
}

export async function openSession(target: Target, inFlight: number): Promise<Session> {
  const main = await connect(target);
  let load: Load;
  if (target.kind === "stdio") load = sdkLoad(main.client);
  else if (main.sessionId) {
    const protocolVersion = main.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    load = rawLoad({ url: target.url, headers: target.headers, sessionId: main.sessionId, protocolVersion }, inFlight);
  } else {
    await main.close();
    throw new Error("server gave no mcp-session-id");
  }
  return {
    sequential: (n, budgetMs) => sequentialSamples(main.client, n, budgetMs),
    load,
    close: async () => {
      await load.close();
      await main.close();
    },
  };
}

/**
 * `rounds` rounds of `step` on every item not `skip`ped, the order rotated by one each
 * round so slow drift of the machine hits every item alike. A step that throws or runs
 * over `budgetMs` is handed to `failed` (which should make `skip` true from then on).
 */
export async function inRounds<T>(o: {
  items: T[];
  rounds: number;
  label: string;
  budgetMs: number;
  skip(item: T): boolean;
  failed(item: T, message: string): void;
  step(item: T, round: number): Promise<void>;
}): Promise<void> {
  for (let round = 0; round < o.rounds; round++) {
    process.stderr.write(`bench: ${o.label} ${round + 1}/${o.rounds}\n`);
    const ready = o.items.filter((item) => !o.skip(item));
    for (let i = 0; i < ready.length; i++) {
      const item = ready[(i + round) % ready.length] as T;
      try {
        await withTimeout(o.step(item, round), o.budgetMs, `${o.label} ${round + 1}`);
      } catch (error) {
        o.failed(item, `${o.label} ${round + 1} failed: ${errorText(error)}`);
      }
    }
  }
}

/** The finite numbers among `values`. */
export const defined = (values: Array<number | undefined>) => values.filter((v): v is number => v !== undefined && Number.isFinite(v));

/** "min–max" of `values`, or "-". */
export const range = (values: number[], digits: number) =>
  values.length === 0 ? "-" : `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
