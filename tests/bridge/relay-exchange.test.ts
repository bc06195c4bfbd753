// `connect` mode hands each relayed request to the bridge's handler as objects
// (local-bridge/src/relay-exchange.ts), with no HTTP in between. Against the real bridge
// (in memory, as `connect` runs it) and server-everything: a plain answer comes back
// whole, a streamed one (progress) as it is written, a stream the session leaves is cut
// short and the session goes on, and the handler's checks (token, routes) still hold.
import { silentLogger } from "@edgehost/shared/logger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bridge } from "../../local-bridge/src/bridge";
import { RelayRequest, RelayResponse } from "../../local-bridge/src/relay-exchange";
import { everythingBin } from "../fixtures/servers";

const TOKEN = "relay-exchange-token-0123456789";
const PATH = "/servers/everything/mcp";
const BOTH = "application/json, text/event-stream";

interface Answer {
  status: number;
  headers: Record<string, string>;
  streamed: boolean;
  chunks: string[];
  body: string;
  complete: boolean;
}

let bridge: Bridge;
beforeAll(async () => {
  bridge = new Bridge({
    host: "127.0.0.1",
    port: 0,
    inMemory: true,
    token: TOKEN,
    baseDir: process.cwd(),
    logger: silentLogger,
    allowHosts: [],
    allowOrigins: [],
    maxBodyBytes: 1024 * 1024,
    startupTimeoutMs: 30_000,
    shutdownTimeoutMs: 10_000,
    sessionIdleMs: 60_000,
    standaloneStream: false,
    backoff: { initialMs: 1000, maxMs: 30_000 },
  });
  await bridge.start({
    servers: [
      {
        name: "everything",
        transport: "stdio",
        command: process.execPath,
        args: [everythingBin, "stdio"],
        env: {},
        disabled: false,
        timeoutMs: 60_000,
        alwaysAllow: [],
        dependencies: [],
        excludeTools: [],
      },
    ],
  });
});
afterAll(async () => {
  expect(await bridge.stop()).toBe(true);
});

/** One relayed request; `onChunk` sees each streamed chunk (and may cut the answer short). */
function relay(
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: unknown; token?: string },
  onChunk?: (chunk: string, response: RelayResponse) => void,
): Promise<Answer> {
  return new Promise((resolve) => {
    const answer: Answer = { status: 0, headers: {}, streamed: false, chunks: [], body: "", complete: false };
    const response: RelayResponse = new RelayResponse({
      head: (status, headers, streamed) => Object.assign(answer, { status, headers, streamed }),
      data: (chunk) => {
        answer.chunks.push(chunk);
        onChunk?.(chunk, response);
      },
      end: (body, complete) => resolve(Object.assign(answer, { body, complete })),
    });
    const headers = {
      host: "localhost",
      authorization: `Bearer ${options.token ?? TOKEN}`,
      accept: BOTH,
      "content-type": "application/json",
      ...options.headers,
    };
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    bridge.handle(new RelayRequest(options.method ?? "POST", options.path ?? PATH, headers, body), response);
  });
}

async function session(): Promise<Record<string, string>> {
  const init = await relay({
    body: {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "relay-test", version: "1" } },
    },
  });
  expect(init).toMatchObject({ status: 200, streamed: false, complete: true });
  const headers = { "mcp-session-id": init.headers["mcp-session-id"] ?? "", "mcp-protocol-version": "2025-11-25" };
  expect((await relay({ headers, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
  return headers;
}

/** The JSON-RPC messages of an answer, whole or streamed (server-everything sends list_changed notifications now and then). */
const messagesOf = (answer: Answer): { id?: number; method?: string; result?: unknown }[] =>
  answer.streamed
    ? answer.chunks
        .join("")
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => JSON.parse(line.slice(6)))
    : [JSON.parse(answer.body)];

const echo = (id: number, message: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { message } } });

describe("a relayed request without HTTP", () => {
  it("answers a tool call with the session's headers, whole in one piece unless the server sent something first", async () => {
    const headers = await session();
    const answer = await relay({ headers, body: echo(1, "through the relay") });
    expect(answer).toMatchObject({ status: 200, complete: true });
    expect(answer.headers).toMatchObject({
      "content-type": answer.streamed ? "text/event-stream" : "application/json",
      "mcp-session-id": headers["mcp-session-id"],
    });
    if (!answer.streamed) expect(answer.chunks).toEqual([]);
    expect(messagesOf(answer).find((m) => m.id === 1)).toMatchObject({ result: { content: [{ type: "text", text: "Echo: through the relay" }] } });
  });

  it("streams an answer with progress as the bridge writes it", async () => {
    const headers = await session();
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "trigger-long-running-operation", arguments: { duration: 0.6, steps: 3 }, _meta: { progressToken: "p" } },
    };
    const answer = await relay({ headers, body: call });
    expect(answer).toMatchObject({ status: 200, streamed: true, complete: true });
    expect(answer.headers["content-type"]).toBe("text/event-stream");
    const messages = messagesOf(answer);
    expect(messages.filter((m) => m.method === "notifications/progress").length).toBeGreaterThanOrEqual(2);
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: "text" }] } });
  });

  it("cuts a stream short when the session leaves it, and the session goes on", async () => {
    const headers = await session();
    const call = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 }, _meta: { progressToken: "q" } },
    };
    const answer = await relay({ headers, body: call }, (chunk, response) => {
      if (chunk.includes("notifications/progress")) response.destroy();
    });
    expect(answer).toMatchObject({ streamed: true, complete: false });
    expect(messagesOf(answer).some((m) => m.id === 3)).toBe(false);
    const next = await relay({ headers, body: echo(4, "still here") });
    expect(messagesOf(next).find((m) => m.id === 4)).toMatchObject({ result: { content: [{ text: "Echo: still here" }] } });
  });

  it("still checks the token, and serves only Streamable HTTP", async () => {
    expect(await relay({ token: "wrong-token-wrong-token-wrong-token", body: echo(5, "x") })).toMatchObject({ status: 401, complete: true });
    const legacy = await relay({ method: "GET", path: "/servers/everything/sse", headers: { accept: "text/event-stream" } });
    expect(legacy).toMatchObject({ status: 404, streamed: false, complete: true });
    expect(JSON.parse(legacy.body)).toMatchObject({ error: { message: "no route GET /servers/everything/sse" } });
  });
});
