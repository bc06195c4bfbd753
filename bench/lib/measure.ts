// Measurements for bench/bridge.ts: SDK connect time, sequential echo latency,
// 50-in-flight throughput (raw JSON-RPC POSTs over undici for HTTP paths, the SDK
// client over stdio for the floor), and many concurrent sessions.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Pool } from "undici";
import { errorText, sleep, withTimeout } from "./procs";

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

export const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

/** Median of `n` fresh connect+initialize round trips (each session ended afterwards). */
export async function connectTimes(target: Target, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const connected = await connect(target);
    times.push(performance.now() - start);
    await connected.close();
  }
  return median(times);
}

async function echo(client: Client): Promise<void> {
  const result = await client.callTool({ name: "echo", arguments: ECHO_ARGS }, undefined, { timeout: CALL_TIMEOUT_MS });
  if (result.isError) throw new Error(`echo returned isError: ${JSON.stringify(result.content).slice(0, 100)}`);
}

/** p50/p99 of `n` sequential echo calls after `warmup` unmeasured ones. */
export async function sequential(client: Client, warmup: number, n: number, budgetMs: number): Promise<{ p50: number; p99: number }> {
  const deadline = Date.now() + budgetMs;
  for (let i = 0; i < warmup; i++) await echo(client);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    if (Date.now() > deadline) throw new Error(`sequential calls over budget (${samples.length}/${n} done in ${budgetMs} ms)`);
    const start = performance.now();
    await echo(client);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

export interface Throughput {
  callsPerSecond: number;
  ok: number;
  errors: number;
  /** A few distinct error reasons with counts. */
  reasons: string[];
}

/** Runs `total` jobs with `inFlight` at once; stops starting new ones after the budget. */
async function pool(total: number, inFlight: number, budgetMs: number, job: (i: number) => Promise<void>): Promise<Throughput> {
  const reasons = new Map<string, number>();
  let next = 0;
  let ok = 0;
  let errors = 0;
  const deadline = Date.now() + budgetMs;
  const start = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      if (Date.now() > deadline) {
        errors++;
        reasons.set("not sent: over time budget", (reasons.get("not sent: over time budget") ?? 0) + 1);
        continue;
      }
      try {
        await job(i);
        ok++;
      } catch (error) {
        errors++;
        const reason = errorText(error);
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - start) / 1000;
  return { callsPerSecond: ok / seconds, ok, errors, reasons: [...reasons].slice(0, 4).map(([r, c]) => `${c}× ${r}`) };
}

/** The floor: the SDK client over stdio, `inFlight` calls at once. */
export function sdkThroughput(client: Client, total: number, inFlight: number, budgetMs: number): Promise<Throughput> {
  return pool(total, inFlight, budgetMs, () => echo(client));
}

/** JSON-RPC messages in a Streamable HTTP response body, JSON or SSE. */
function parseBody(contentType: string, text: string): unknown[] {
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

export interface RawSession {
  url: string;
  headers: Record<string, string>;
  sessionId: string;
  protocolVersion: string;
}

/** Raw `tools/call` POSTs over one keep-alive undici Pool, all on one existing session. */
export async function rawThroughput(session: RawSession, total: number, inFlight: number, budgetMs: number, firstId = 1): Promise<Throughput> {
  const url = new URL(session.url);
  const http = new Pool(url.origin, { connections: inFlight, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: CALL_TIMEOUT_MS, bodyTimeout: CALL_TIMEOUT_MS });
  const headers = {
    ...session.headers,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": session.sessionId,
    "mcp-protocol-version": session.protocolVersion,
  };
  try {
    return await pool(total, inFlight, budgetMs, async (i) => {
      const id = firstId + i;
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
    });
  } finally {
    await http.destroy().catch(() => undefined);
  }
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
