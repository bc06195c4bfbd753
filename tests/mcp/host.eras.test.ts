// McpHost speaks both MCP eras, chosen per server (issue 34): the SDK's v2 server
// serving 2026-07-28 only (`legacy: "reject"`) or with its stateless 2025 fallback,
// answered as a 2025 server, and server-everything (SDK v1, 2025 only), each a real
// process over Streamable HTTP. A 2026 server's questions (input_required results)
// reach the same elicitation handler as a 2025 server's requests.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ElicitResult } from "@modelcontextprotocol/client";
import type { ServerRequestHandlers } from "../../src/mcp/server-requests";
import { testHost } from "../fixtures/host";
import { startEverythingHttp, type RunningServer } from "../fixtures/http-servers";
import { httpServer } from "../fixtures/servers";
import { startV2Server, type RunningV2Server } from "../fixtures/v2-servers";

let modern: RunningV2Server;
let both: RunningV2Server;
let legacy: RunningV2Server;
let everything: RunningServer;
beforeAll(async () => {
  [modern, both, legacy, everything] = await Promise.all([
    startV2Server("modern"),
    startV2Server("both"),
    startV2Server("legacy"),
    startEverythingHttp("streamableHttp"),
  ]);
});
afterAll(async () => {
  await Promise.all([modern?.stop(), both?.stop(), legacy?.stop(), everything?.stop()]);
});

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

async function hostFor(url: string, handlers: ServerRequestHandlers = {}) {
  const { host } = testHost();
  host.onServerRequest(handlers);
  const report = await host.connect({ servers: [httpServer("srv", url)] });
  return { host, report };
}

describe("McpHost with servers of both MCP eras", () => {
  it("connects a server that speaks only 2026-07-28, and its tools work", async () => {
    const { host, report } = await hostFor(modern.url);
    expect(report).toEqual({ ready: ["srv"], failed: [] });
    expect(host.servers()[0]).toMatchObject({ state: "ready", transport: "streamable-http", protocol: "2026-07-28" });
    expect(
      host
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(["ask", "echo", "grow", "locate", "touch"]);
    expect(text(await host.callTool("srv.echo", { text: "over 2026" }))).toBe("over 2026");
  });

  it("speaks 2026-07-28 to a server that offers both, and its question reaches the elicitation handler", async () => {
    const asked: { server: string; message: string }[] = [];
    const { host } = await hostFor(both.url, {
      elicitation: async ({ server, params }): Promise<ElicitResult> => {
        asked.push({ server, message: params.message });
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    expect(host.servers()[0]?.protocol).toBe("2026-07-28");
    const result = await host.callTool("srv.ask", {});
    expect(asked).toEqual([{ server: "srv", message: "What is your name?" }]);
    expect(text(result)).toBe("Hello, Ada!");
  });

  it("tells a 2026 server that the person declined", async () => {
    const { host } = await hostFor(modern.url, { elicitation: async () => ({ action: "decline" }) });
    expect(text(await host.callTool("srv.ask", {}))).toBe("no name (decline)");
  });

  it("does not offer elicitation to a 2026 server when the host has no handler, and the call fails in words", async () => {
    const { host } = await hostFor(modern.url);
    // The capability is declared per request on 2026: without a handler it is not, and the server says so.
    await expect(host.callTool("srv.ask", {})).rejects.toMatchObject({ code: "protocol", message: expect.stringMatching(/Cannot request input 'name'/) });
    expect(host.servers()[0]?.state).toBe("ready");
  });

  it("keeps the 2025 handshake for 2025 servers: server-everything (SDK v1) and a v2 server answering as 2025", async () => {
    for (const url of [everything.url, legacy.url]) {
      const { host } = await hostFor(url);
      expect(host.servers()[0]).toMatchObject({ state: "ready", transport: "streamable-http", protocol: "2025-11-25" });
    }
    const { host } = await hostFor(everything.url);
    expect(text(await host.callTool("srv.echo", { message: "old" }))).toBe("Echo: old");
  });
});
