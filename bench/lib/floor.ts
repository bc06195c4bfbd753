// The least any stdio→HTTP bridge can cost (issue 35's floor): an echo call made raw
// on the stdio server itself (the SDK's stdio transport, no Client: the eras rows are
// raw POSTs too, so neither side carries the SDK client's own work) plus one bare
// keep-alive HTTP round trip on loopback (a trivial node:http server in its own process
// answering a small POST, driven by the same kind of undici Pool as the eras rows).
// bench/lib/eras.ts times both in the same rounds as the bridge's two revisions.
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Pool } from "undici";
import { ECHO_ARGS } from "./measure";
import { startManaged, withTimeout } from "./procs";

export type Caller = () => Promise<void>;

export interface Floor {
  stdio: Caller;
  http: Caller;
  close(): Promise<void>;
}

// Answers every POST with a JSON body the size of an echo result, on a kept-alive socket.
const HTTP_SERVER = `
const http = require("node:http");
const reply = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "Echo: hello from the bridge benchmark" }] } });
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => { res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) }); res.end(reply); });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.log("floor listening on " + server.address().port));
`;

async function rawStdio(command: string, args: string[]): Promise<{ call: Caller; close(): Promise<void> }> {
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  const waiting = new Map<number, (m: JSONRPCMessage) => void>();
  transport.onmessage = (m) => {
    const id = (m as { id?: unknown }).id;
    if (typeof id === "number") waiting.get(id)?.(m);
  };
  await transport.start();
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<JSONRPCMessage>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, (m) => {
        waiting.delete(id);
        if ("result" in m) resolve(m);
        else reject(new Error(`${method}: ${JSON.stringify(m).slice(0, 120)}`));
      });
      transport.send({ jsonrpc: "2.0", id, method, params }).catch(reject);
    });
  await withTimeout(
    request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench-floor", version: "1" } }),
    20_000,
    "floor initialize",
  );
  await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    call: async () => void (await request("tools/call", { name: "echo", arguments: ECHO_ARGS })),
    close: () => transport.close(),
  };
}

/** Starts the floor's stdio server (`command args`) and its bare HTTP server. */
export async function startFloor(command: string, args: string[]): Promise<Floor> {
  const server = startManaged("floor http", process.execPath, ["-e", HTTP_SERVER]);
  try {
    const port = (await server.waitFor(/floor listening on (\d+)/, 20_000))[1];
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1, pipelining: 1, keepAliveTimeout: 30_000 });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: ECHO_ARGS } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const stdio = await rawStdio(command, args);
    return {
      stdio: stdio.call,
      http: async () => {
        const res = await pool.request({ path: "/mcp", method: "POST", headers, body });
        const text = await res.body.text();
        if (res.statusCode !== 200 || !text.includes('"result"')) throw new Error(`floor HTTP ${res.statusCode}`);
      },
      close: async () => {
        await Promise.allSettled([stdio.close(), pool.destroy()]);
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
