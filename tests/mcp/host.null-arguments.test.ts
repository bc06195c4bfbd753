// An optional tool argument set to null (models often write null for "not given") is left
// out of the call, not refused, on both MCP eras (conformance sep-2243-client-omit-null): on
// a 2026-07-28 connection no `Mcp-Param-*` header goes out for it either. The SDK's v2 server
// (tests/fixtures/v2-server.mjs): `locate` has a required `region` and an optional boolean
// `exact`, both marked with x-mcp-header; GET /param-headers says which headers each POST had.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolArgumentsError } from "../../src/mcp/errors";
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

async function paramHeaders(server: RunningV2Server): Promise<Record<string, string>[]> {
  return (await (await fetch(new URL("/param-headers", server.url))).json()) as Record<string, string>[];
}

async function connected(server: RunningV2Server) {
  const { host } = testHost();
  expect(await host.connect({ servers: [httpServer("srv", server.url)] })).toEqual({ ready: ["srv"], failed: [] });
  return host;
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("null for an optional argument", () => {
  it("is left out of a 2026 call, with no header for it", async () => {
    const host = await connected(modern);
    const before = (await paramHeaders(modern)).length;
    expect(text(await host.callTool("srv.locate", { region: "eu", exact: null }))).toBe("region eu");
    expect((await paramHeaders(modern)).slice(before)).toEqual([{ "mcp-param-region": "eu" }]);
    // A value still goes as given, header included.
    expect(text(await host.callTool("srv.locate", { region: "eu", exact: true }))).toBe("region eu exact true");
    expect((await paramHeaders(modern)).at(-1)).toEqual({ "mcp-param-region": "eu", "mcp-param-exact": "true" });
  });

  it("is left out of a 2025 call too", async () => {
    const host = await connected(legacy);
    expect(host.servers()[0]?.protocol).toBe("2025-11-25");
    expect(text(await host.callTool("srv.locate", { region: "eu", exact: null }))).toBe("region eu");
  });

  it("is still refused for a required argument, naming it", async () => {
    const host = await connected(modern);
    const error = await host.callTool("srv.locate", { region: null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolArgumentsError);
    expect((error as ToolArgumentsError).issues).toEqual([{ path: "region", message: "expected string, got null" }]);
  });
});
