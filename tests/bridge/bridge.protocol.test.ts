// The Streamable HTTP transport's header rules (MCP 2025-11-25, basic/transports), as
// raw HTTP against the real bridge: Origin, Accept (406), MCP-Protocol-Version (400),
// Mcp-Session-Id (400 when missing, 404 when unknown). Every refusal is a JSON-RPC
// error object. The SDK's own client is refused nothing (it runs in the other files).
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { everythingBin } from "../fixtures/servers";

let bridge: RunningBridge;
let mcp: string;
beforeAll(async () => {
  bridge = await startBridge({ everything: { command: process.execPath, args: [everythingBin, "stdio"] } });
  mcp = `${bridge.url}/servers/everything/mcp`;
});
afterAll(async () => {
  expect(await bridge.stop()).toBe(0);
});

const BOTH = "application/json, text/event-stream";
const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };

async function send(method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(mcp, {
    method,
    headers: { authorization: `Bearer ${bridge.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined, headers: response.headers };
}

async function session(): Promise<string> {
  const answer = await send("POST", { accept: BOTH }, initialize);
  expect(answer.status).toBe(200);
  return answer.headers.get("mcp-session-id") ?? "";
}

const rpcError = (code: number, message: RegExp) => ({ jsonrpc: "2.0", id: null, error: { code, message: expect.stringMatching(message) } });

/** GET /metrics with an Origin header (fetch would not let us set one). */
function metricsWithOrigin(origin: string): Promise<number> {
  const url = new URL(bridge.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: "/metrics", headers: { authorization: `Bearer ${bridge.token}`, origin } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("bridge: Streamable HTTP header rules", () => {
  it("accepts its own origin (127.0.0.1 and localhost on its port) and still refuses other ports and hosts", async () => {
    const port = new URL(bridge.url).port;
    expect(await metricsWithOrigin(`http://127.0.0.1:${port}`)).toBe(200);
    expect(await metricsWithOrigin(`http://localhost:${port}`)).toBe(200);
    expect(await metricsWithOrigin(`http://localhost:${Number(port) === 1 ? 2 : Number(port) - 1}`)).toBe(403);
    expect(await metricsWithOrigin(`https://127.0.0.1:${port}`)).toBe(403);
    expect(await metricsWithOrigin("http://evil.example")).toBe(403);
  });

  it("answers a POST whose Accept lacks application/json or text/event-stream with 406", async () => {
    for (const accept of ["application/json", "text/event-stream", "text/html", "application/json, text/event-stream;q=0"]) {
      expect(await send("POST", { accept }, initialize)).toMatchObject({
        status: 406,
        json: rpcError(-32600, /^Not Acceptable: Accept must list both application\/json and text\/event-stream$/),
      });
    }
    const none = await fetch(mcp, {
      method: "POST",
      headers: { authorization: `Bearer ${bridge.token}`, "content-type": "application/json", accept: "" },
      body: JSON.stringify(initialize),
    });
    expect(none.status).toBe(406);
    // Media ranges cover both (curl and fetch send */* by default).
    expect((await send("POST", { accept: "*/*" }, initialize)).status).toBe(200);
    expect((await send("POST", { accept: "application/*, text/*" }, initialize)).status).toBe(200);
  });

  it("answers a GET whose Accept lacks text/event-stream with 406", async () => {
    const id = await session();
    expect(await send("GET", { accept: "application/json", "mcp-session-id": id })).toMatchObject({
      status: 406,
      json: rpcError(-32600, /^Not Acceptable: Accept must list text\/event-stream$/),
    });
  });

  it("answers an unsupported MCP-Protocol-Version with 400, and takes every supported one or none", async () => {
    const id = await session();
    const bad = await send("POST", { accept: BOTH, "mcp-session-id": id, "mcp-protocol-version": "1999-01-01" }, list);
    expect(bad).toMatchObject({ status: 400, json: rpcError(-32600, /^Bad Request: unsupported MCP-Protocol-Version "1999-01-01" \(supported: 2025-11-25, /) });
    expect((await send("DELETE", { "mcp-session-id": id, "mcp-protocol-version": "junk" })).status).toBe(400);
    for (const version of ["2025-11-25", "2025-06-18", "2025-03-26"]) {
      expect((await send("POST", { accept: BOTH, "mcp-session-id": id, "mcp-protocol-version": version }, list)).status).toBe(200);
    }
    // No header: the version negotiated at initialize holds.
    expect((await send("POST", { accept: BOTH, "mcp-session-id": id }, list)).status).toBe(200);
  });

  it("answers a non-initialize request without Mcp-Session-Id with 400, and an unknown session with 404", async () => {
    expect(await send("POST", { accept: BOTH }, list)).toMatchObject({
      status: 400,
      json: rpcError(-32600, /^Bad Request: the Mcp-Session-Id header is required/),
    });
    expect(await send("POST", { accept: BOTH }, { jsonrpc: "2.0", method: "notifications/initialized" })).toMatchObject({ status: 400 });
    expect(await send("DELETE", {})).toMatchObject({ status: 400, json: rpcError(-32600, /Mcp-Session-Id/) });
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await send("POST", { accept: BOTH, "mcp-session-id": unknown }, list)).toMatchObject({
      status: 404,
      json: rpcError(-32001, /^session not found: initialize again$/),
    });
    expect(await send("DELETE", { "mcp-session-id": unknown })).toMatchObject({ status: 404, json: rpcError(-32001, /session not found/) });
    expect(await send("GET", { accept: "text/event-stream", "mcp-session-id": unknown, "last-event-id": "1_1" })).toMatchObject({ status: 404 });
  });

  it("serves the SDK client (it sends MCP-Protocol-Version after initialize) with no refusal", async () => {
    const { client, transport } = await connectClient(bridge, "everything");
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect((await client.callTool({ name: "echo", arguments: { message: "ok" } })).content).toEqual([{ type: "text", text: "Echo: ok" }]);
    await client.close();
  });
});
