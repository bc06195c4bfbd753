// The two ends bench:relay puts in place of the bridge to time the Worker's side of a call
// on its own: one MCP server (the SDK's v2 `McpServer` with one `echo` tool, stateless,
// each answer one JSON body as the bridge's usually is) answered in this process either over HTTP (as `BRIDGE_URL` would be
// reached) or as a paired machine over the relay's WebSocket (as `mcp-local-bridge
// connect` would be). Each end records, on this process's clock, when a request reached
// it and when its answer was handed back to the socket, so the caller splits each call
// into Worker out (call sent → request here), server, and Worker back (answer sent → call
// answered). With no bridge and no child in the way, relay − HTTP of the Worker legs is
// what the account object's hop costs.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import WebSocket from "ws";
import { z } from "zod";
import { SERVERS_HEADER, ToBridgeSchema, type ToWorker } from "../../src/shared/machine-frames";

/** One request an end served: when it arrived and when its answer left, in ms on `clock()`. */
export interface Served {
  arrived: number;
  answered: number;
}

export interface FakeEnd {
  served: Served[];
  stop(): Promise<void>;
}

export const clock = () => performance.timeOrigin + performance.now();

function echoServer(): McpServer {
  const server = new McpServer({ name: "relay-fake", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes `message`.", inputSchema: z.object({ message: z.string() }) }, async ({ message }) => ({
    content: [{ type: "text", text: message }],
  }));
  return server;
}

/**
 * One request answered by a fresh stateless server, in JSON: so the relay carries it in one
 * `full` frame, as it carries the bridge's answer to a call (an SSE answer would take three).
 */
async function echoHandler(request: Request): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await echoServer().connect(transport);
  return transport.handleRequest(request);
}

/** The echo server over HTTP on a free loopback port: an mcp.json `url` entry the Worker fetches directly. */
export async function startFakeHttp(): Promise<FakeEnd & { url: string }> {
  const handle = toNodeHandler({ fetch: echoHandler });
  const served: Served[] = [];
  const server = createServer((req, res) => {
    const entry = { arrived: clock(), answered: Number.NaN };
    served.push(entry);
    const end = res.end.bind(res);
    // The answer's last write, as the WebSocket end records its send.
    res.end = ((...args: Parameters<typeof res.end>) => {
      entry.answered = clock();
      return end(...args);
    }) as typeof res.end;
    void handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    served,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const PairStartSchema = z.object({ code: z.string(), pollToken: z.string() });
const PairPollSchema = z.object({ state: z.literal("approved"), credential: z.string() });

async function postJson(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json().catch(() => undefined) };
}

/**
 * A machine paired by the stack's (auth-less) user, offering the echo server as `server`, answered
 * here over the relay's frames (src/shared/machine-frames.ts). Resolves once its socket is open.
 */
export async function connectFakeMachine(origin: string, name: string, server: string): Promise<FakeEnd> {
  const started = await postJson(`${origin}/api/machines/pair`, { name });
  const { code, pollToken } = PairStartSchema.parse(started.json);
  const approved = await postJson(`${origin}/api/machines/approve`, { code });
  if (approved.status !== 201) throw new Error(`approve answered ${approved.status}: ${JSON.stringify(approved.json)}`);
  const { credential } = PairPollSchema.parse((await postJson(`${origin}/api/machines/pair/poll`, { code, pollToken })).json);
  const served: Served[] = [];
  const socket = new WebSocket(`${origin.replace(/^http/, "ws")}/machines/connect`, {
    perMessageDeflate: false,
    headers: { authorization: `Bearer ${credential}`, [SERVERS_HEADER]: server },
  });
  const send = (frame: ToWorker) => socket.send(JSON.stringify(frame));
  socket.on("message", (data, isBinary) => {
    const arrived = clock();
    if (isBinary) return;
    const text = data.toString();
    if (text === "pong") return;
    const frame = ToBridgeSchema.parse(JSON.parse(text));
    if (frame.t !== "req") return;
    const request = new Request(`http://localhost${frame.path}`, { method: frame.method, headers: frame.headers, body: frame.body });
    void echoHandler(request).then(async (response) => {
      const headers = [...response.headers].filter(([key]) => ["content-type", "mcp-session-id"].includes(key));
      const body = await response.text();
      const entry = { arrived, answered: clock() };
      served.push(entry);
      // An event stream goes as one chunk after its head; a JSON answer whole, as the bridge sends a short one.
      if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        send({ t: "head", id: frame.id, status: response.status, headers });
        send({ t: "data", id: frame.id, chunk: body, seq: 0 });
        send({ t: "end", id: frame.id, chunks: 1 });
      } else send({ t: "full", id: frame.id, status: response.status, headers, body });
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
    socket.once("unexpected-response", (_request, response) => reject(new Error(`the Worker refused the fake machine: ${response.statusCode}`)));
  });
  return {
    served,
    stop: () =>
      new Promise<void>((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once("close", () => resolve());
        socket.close(1000, "bench done");
      }),
  };
}
