// McpHost against remote servers reached directly (mcp.json `"type": "http"`/`"sse"`):
// server-everything's own Streamable HTTP and legacy SSE transports.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testHost } from "../fixtures/host";
import { startEverythingHttp, type RunningServer } from "../fixtures/http-servers";
import { httpServer } from "../fixtures/servers";

let streamable: RunningServer;
let sse: RunningServer;

beforeAll(async () => {
  [streamable, sse] = await Promise.all([startEverythingHttp("streamableHttp"), startEverythingHttp("sse")]);
});
afterAll(async () => {
  await Promise.all([streamable?.stop(), sse?.stop()]);
});

describe("McpHost over HTTP", () => {
  it("discovers and calls tools over Streamable HTTP", async () => {
    const { host } = testHost();
    await host.connect({ servers: [httpServer("remote", streamable.url)] });
    expect(host.servers()[0]).toMatchObject({ state: "ready", transport: "streamable-http" });
    expect(host.tools().map((t) => t.name)).toContain("get-sum");
    expect(await host.callTool("remote.get-sum", { a: 20, b: 22 })).toEqual({ content: [{ type: "text", text: "The sum of 20 and 22 is 42." }] });
    expect((await host.readResource("demo://resource/static/document/architecture.md")).contents[0]?.uri).toBe(
      "demo://resource/static/document/architecture.md",
    );
  });

  it("falls back to legacy SSE when an http server does not speak Streamable HTTP", async () => {
    const { host } = testHost();
    await host.connect({ servers: [httpServer("old", sse.url)] });
    expect(host.servers()[0]).toMatchObject({ state: "ready", transport: "sse" });
    expect(await host.callTool("old.echo", { message: "via sse" })).toEqual({ content: [{ type: "text", text: "Echo: via sse" }] });
  });

  it("uses SSE directly for type sse", async () => {
    const { host } = testHost();
    await host.connect({ servers: [httpServer("legacy", sse.url, { transport: "sse" })] });
    expect(host.servers()[0]).toMatchObject({ state: "ready", transport: "sse" });
  });

  it("reports an unreachable URL as unavailable with the reason", async () => {
    const { host } = testHost({ connectTimeoutMs: 5_000 });
    const report = await host.connect({ servers: [httpServer("gone", "http://127.0.0.1:9/mcp")] });
    expect(report.failed).toEqual([{ server: "gone", reason: expect.stringMatching(/fetch failed|ECONNREFUSED/) }]);
    expect(host.servers()[0]?.state).toBe("unavailable");
  });
});
