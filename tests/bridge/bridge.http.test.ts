import { spawn } from "node:child_process";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { everythingBin, packageBin } from "../fixtures/servers";

let bridge: RunningBridge;
beforeAll(async () => {
  bridge = await startBridge({ everything: { command: process.execPath, args: [everythingBin, "stdio"] } }, ["--max-body", "65536"]);
});
afterAll(async () => {
  expect(await bridge.stop()).toBe(0);
});

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(`${bridge.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${bridge.token}`, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A raw request where fetch would not let us set the header (Host). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(bridge.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("bridge HTTP surface", () => {
  it("requires the bearer token everywhere; an open /health says only whether all is well", async () => {
    const open = await fetch(`${bridge.url}/health`);
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ ok: true });
    const detailed = await fetch(`${bridge.url}/health`, { headers: { authorization: `Bearer ${bridge.token}` } });
    expect(await detailed.json()).toMatchObject({ ok: true, servers: { everything: { state: "ready", pid: expect.any(Number) } } });
    expect((await fetch(`${bridge.url}/health`, { headers: { authorization: "Bearer nope" } })).status).toBe(401);
    const none = await fetch(`${bridge.url}/metrics`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: "missing bearer token (Authorization: Bearer <BRIDGE_TOKEN>)" },
    });
    const wrong = await post("/servers/everything/mcp", JSON.stringify(initialize), { authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toMatchObject({ error: { message: "wrong bearer token" } });
    const right = await post("/servers/everything/mcp", JSON.stringify(initialize));
    expect(right.status).toBe(200);
    expect(right.json).toMatchObject({ id: 1, result: { serverInfo: { name: "mcp-servers/everything" } } });
    expect(right.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("rejects foreign Host and Origin headers (DNS rebinding)", async () => {
    const port = new URL(bridge.url).port;
    const auth = { authorization: `Bearer ${bridge.token}` };
    expect(await rawGet("/metrics", { ...auth, host: `evil.example:${port}` })).toMatchObject({
      status: 403,
      body: expect.stringContaining('Host \\"evil.example'),
    });
    expect(await rawGet("/metrics", { ...auth, host: `localhost:${port}`, origin: "http://evil.example" })).toMatchObject({
      status: 403,
      body: expect.stringContaining("Origin"),
    });
    expect(await rawGet("/metrics", { ...auth, host: `localhost:${port}`, origin: "http://localhost:8787" })).toMatchObject({ status: 200 });
  });

  it("answers bad bodies with JSON-RPC errors, never HTML or a stack trace", async () => {
    const big = await post("/servers/everything/mcp", JSON.stringify({ ...initialize, params: { ...initialize.params, pad: "x".repeat(70_000) } }));
    expect(big).toMatchObject({ status: 413, json: { error: { code: -32600, message: "body larger than 65536 bytes" } } });
    expect(await post("/servers/everything/mcp", "{not json")).toMatchObject({ status: 400, json: { error: { code: -32700 } } });
    expect(await post("/servers/everything/mcp", JSON.stringify({ hello: "world" }))).toMatchObject({
      status: 400,
      json: { error: { code: -32600, message: "not a JSON-RPC 2.0 message" } },
    });
    expect(await post("/servers/everything/mcp", "[]")).toMatchObject({ status: 400, json: { error: { message: "empty batch" } } });
    expect(await post("/servers/everything/mcp", JSON.stringify(initialize), { "content-type": "text/plain" })).toMatchObject({ status: 415 });
    expect(await post("/servers/nope/mcp", JSON.stringify(initialize))).toMatchObject({
      status: 404,
      json: { error: { message: 'unknown MCP server "nope"' } },
    });
    expect(
      await post("/servers/everything/mcp", JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), { "mcp-session-id": "made-up" }),
    ).toMatchObject({
      status: 404,
      json: { error: { code: -32001, message: "session not found: initialize again" } },
    });
    const nowhere = await fetch(`${bridge.url}/elsewhere`, { headers: { authorization: `Bearer ${bridge.token}` } });
    expect(nowhere.headers.get("content-type")).toBe("application/json");
  });

  it("offers no standalone GET stream by default, and ends sessions on DELETE", async () => {
    const { client, transport } = await connectClient(bridge, "everything");
    const sessionId = transport.sessionId ?? "";
    const headers = { authorization: `Bearer ${bridge.token}`, "mcp-session-id": sessionId, accept: "text/event-stream" };
    expect((await fetch(`${bridge.url}/servers/everything/mcp`, { headers })).status).toBe(405);
    expect((await fetch(`${bridge.url}/servers/everything/mcp`, { method: "DELETE", headers })).status).toBe(200);
    const after = await post("/servers/everything/mcp", JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }), { "mcp-session-id": sessionId });
    expect(after.status).toBe(404);
    await client.close();
  });

  it("serves old clients over legacy SSE", async () => {
    const transport = new SSEClientTransport(new URL(`${bridge.url}/servers/everything/sse`), {
      requestInit: { headers: { Authorization: `Bearer ${bridge.token}` } },
    });
    const client = new Client({ name: "legacy", version: "1" });
    await client.connect(transport);
    expect((await client.callTool({ name: "echo", arguments: { message: "old" } })).content).toEqual([{ type: "text", text: "Echo: old" }]);
    await client.close();
  });

  it("works with the MCP Inspector CLI as an outside client", async () => {
    // The Inspector CLI 0.15 cannot send headers, so a loopback hop adds the token,
    // as a tunnel in front of the bridge would.
    const hop: Server = createServer((req, res) => {
      const target = new URL(bridge.url);
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: target.host, authorization: `Bearer ${bridge.token}` },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => hop.listen(0, "127.0.0.1", resolve));
    try {
      const port = (hop.address() as AddressInfo).port;
      const cli = packageBin("@modelcontextprotocol/inspector-cli", "build/index.js");
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [cli, `http://127.0.0.1:${port}/servers/everything/mcp`, "--transport", "http", "--method", "tools/list"]);
        let out = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString()));
        child.stderr.on("data", (c: Buffer) => (out += c.toString()));
        child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`inspector exited ${code}: ${out}`))));
      });
      const listed = JSON.parse(output) as { tools: { name: string }[] };
      expect(listed.tools.map((t) => t.name)).toContain("echo");
    } finally {
      hop.closeAllConnections();
      await new Promise<void>((resolve) => hop.close(() => resolve()));
    }
  });

  it("never logs tool arguments or results at info level", async () => {
    const { client } = await connectClient(bridge, "everything");
    const result = await client.callTool({ name: "echo", arguments: { message: "PRIVATE-ARGUMENT-7731" } });
    expect(JSON.stringify(result)).toContain("PRIVATE-ARGUMENT-7731");
    await client.close();
    expect(bridge.stderr()).not.toContain("PRIVATE-ARGUMENT-7731");
    expect(bridge.stderr()).not.toContain(bridge.token);
  });
});
