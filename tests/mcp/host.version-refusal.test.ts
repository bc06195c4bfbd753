// A server that refuses the host's MCP revision is said to, naming what each side speaks,
// and the legacy SSE transport is tried only where a server answers like a 2024 server
// (issue 34). The refusing servers are plain HTTP servers started here that answer every
// POST with the JSON-RPC error a Streamable HTTP server sends, and count the GETs an SSE
// fallback would make; server-everything's own SSE transport is the real 2024 server.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testHost } from "../fixtures/host";
import { readBody, startEverythingHttp, type RunningServer } from "../fixtures/http-servers";
import { httpServer } from "../fixtures/servers";

interface Refuser {
  url: string;
  gets: number;
  close(): Promise<void>;
}

/** Answers every POST with HTTP 400 and `error` as its JSON-RPC error; counts GETs. */
async function refuser(error: { code: number; message: string; data?: unknown }): Promise<Refuser> {
  const state = { gets: 0 };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST") {
      state.gets++;
      res.writeHead(405).end();
      return;
    }
    const body = JSON.parse(await readBody(req)) as { id?: unknown };
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: body.id ?? null, error }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get gets() {
      return state.gets;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let future: Refuser;
let badRequest: Refuser;
let sse: RunningServer;
beforeAll(async () => {
  [future, badRequest, sse] = await Promise.all([
    refuser({ code: -32022, message: "Unsupported protocol version", data: { supported: ["2027-03-01"], requested: "2026-07-28" } }),
    refuser({ code: -32600, message: "Bad Request: missing header" }),
    startEverythingHttp("sse"),
  ]);
});
afterAll(async () => {
  await Promise.all([future?.close(), badRequest?.close(), sse?.stop()]);
});

describe("a server that refuses the host's protocol revision", () => {
  it("says which revisions each side speaks, as a typed protocol error, and tries no SSE", async () => {
    const { host } = testHost();
    const report = await host.connect({ servers: [httpServer("future", future.url)] });
    expect(report.failed).toEqual([
      {
        server: "future",
        code: "protocol",
        reason: expect.stringMatching(
          /refused this host's MCP revision \(it was offered 2026-07-28\): it speaks 2027-03-01; this host speaks 2026-07-28, 2025-11-25/,
        ),
      },
    ]);
    expect(report.failed[0]?.reason).not.toMatch(/SSE/i);
    expect(host.servers()[0]).toMatchObject({ state: "unavailable", lastError: report.failed[0]?.reason });
    expect(future.gets).toBe(0);
  });

  it("does not take a JSON-RPC refusal of another kind for an old SSE server", async () => {
    const { host } = testHost();
    const report = await host.connect({ servers: [httpServer("picky", badRequest.url)] });
    expect(report.failed).toEqual([{ server: "picky", reason: "the server answered HTTP 400" }]);
    expect(badRequest.gets).toBe(0);
  });

  it("still reaches a real 2024 server (no POST endpoint) over SSE", async () => {
    const { host } = testHost();
    await host.connect({ servers: [httpServer("old", sse.url)] });
    expect(host.servers()[0]).toMatchObject({ state: "ready", transport: "sse", protocol: "2025-11-25" });
  });
});
