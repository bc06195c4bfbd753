// SEP-2243 (issue 34, conformance `http-custom-headers`): on a 2026-07-28 connection over
// Streamable HTTP, a tool argument whose input schema marks it with `x-mcp-header` also
// travels as an `Mcp-Param-<Name>` header, so gateways can route on it without reading the
// body. The host calls tools through the SDK's callTool with the discovered definition;
// the SDK's v2 server (tests/fixtures/v2-server.mjs) records the headers each POST carried.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testHost } from "../fixtures/host";
import { httpServer } from "../fixtures/servers";
import { startV2Server, type RunningV2Server } from "../fixtures/v2-servers";

let modern: RunningV2Server;
beforeAll(async () => {
  modern = await startV2Server("modern");
});
afterAll(async () => {
  await modern?.stop();
});

async function paramHeaders(server: RunningV2Server): Promise<Record<string, string>[]> {
  const response = await fetch(new URL("/param-headers", server.url));
  return (await response.json()) as Record<string, string>[];
}

describe("McpHost mirrors x-mcp-header arguments (SEP-2243)", () => {
  it("sends a marked argument as Mcp-Param-Region on a 2026 tool call, and the call still works", async () => {
    const { host } = testHost();
    const report = await host.connect({ servers: [httpServer("srv", modern.url)] });
    expect(report).toEqual({ ready: ["srv"], failed: [] });
    expect(host.servers()[0]?.protocol).toBe("2026-07-28");
    const before = (await paramHeaders(modern)).length;
    const result = await host.callTool("srv.locate", { region: "eu-west-1" });
    expect((result.content[0] as { text: string }).text).toBe("region eu-west-1");
    const sent = (await paramHeaders(modern)).slice(before);
    // One POST for the call; a tool without marked arguments sends none (echo below).
    expect(sent).toEqual([{ "mcp-param-region": "eu-west-1" }]);
    await host.callTool("srv.echo", { text: "plain" });
    expect((await paramHeaders(modern)).slice(before + 1)).toEqual([{}]);
  });
});
