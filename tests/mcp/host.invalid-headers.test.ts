// SEP-2243 on a 2026-07-28 connection over Streamable HTTP: a tool whose `x-mcp-header`
// declarations are invalid is left out of what the host offers (conformance
// http-invalid-tool-headers), so the model never sees it; the host reads tools through the
// SDK's own listTools there, which applies the spec's check. The SDK's v2 server
// (tests/fixtures/v2-server.mjs) lists `spaced`, whose header name has a space.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testHost } from "../fixtures/host";
import { httpServer } from "../fixtures/servers";
import { startV2Server, type RunningV2Server } from "../fixtures/v2-servers";

let modern: RunningV2Server;
let legacy: RunningV2Server;
beforeAll(async () => {
  [modern, legacy] = await Promise.all([startV2Server("modern"), startV2Server("legacy")]);
});
afterAll(async () => {
  await Promise.all([modern?.stop(), legacy?.stop()]);
});

async function toolsAt(url: string): Promise<{ protocol?: string; tools: string[] }> {
  const { host } = testHost();
  expect(await host.connect({ servers: [httpServer("srv", url)] })).toEqual({ ready: ["srv"], failed: [] });
  return { protocol: host.servers()[0]?.protocol, tools: host.tools().map((t) => t.name) };
}

describe("tools with invalid x-mcp-header declarations", () => {
  it("are left out on a 2026 connection, and the valid ones kept", async () => {
    const { protocol, tools } = await toolsAt(modern.url);
    expect(protocol).toBe("2026-07-28");
    expect(tools).not.toContain("spaced");
    expect(tools).toContain("locate");
  });

  it("are kept on a 2025 connection, where headers are not mirrored", async () => {
    const { protocol, tools } = await toolsAt(legacy.url);
    expect(protocol).toBe("2025-11-25");
    expect(tools).toContain("spaced");
  });
});
