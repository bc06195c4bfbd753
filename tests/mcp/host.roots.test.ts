// Roots from a server's entry: McpHost offers the roots capability (with listChanged)
// only to servers whose entry lists roots, answers their roots/list from the entry, and
// setRoots tells the server its list changed. server-everything over its own
// Streamable HTTP registers get-roots-list only for a client that offers roots.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testHost } from "../fixtures/host";
import { startEverythingHttp, type RunningServer } from "../fixtures/http-servers";
import { httpServer } from "../fixtures/servers";

let remote: RunningServer;
beforeAll(async () => {
  remote = await startEverythingHttp("streamableHttp");
});
afterAll(async () => {
  await remote?.stop();
});

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("McpHost roots from the configuration", () => {
  it("offers roots only to the server that has them, and serves that server its own list", async () => {
    const { host } = testHost();
    await host.connect({
      servers: [httpServer("rooted", remote.url, { roots: [{ uri: "file:///srv/project", name: "project" }] }), httpServer("plain", remote.url)],
    });
    const tools = host.tools().map((t) => t.qualifiedName);
    expect(tools).toContain("rooted.get-roots-list");
    expect(tools).not.toContain("plain.get-roots-list");
    expect(text(await host.callTool("rooted.get-roots-list", {}))).toContain("1. project\n   URI: file:///srv/project");
    // Nothing to notify on a server that was never offered roots: it must reconnect to get them.
    expect(await host.setRoots("plain", [{ uri: "file:///srv/other" }])).toBe(false);
  });

  it("sends roots/list_changed on setRoots, and the server asks for the new list", async () => {
    const { host } = testHost();
    await host.connect({ servers: [httpServer("rooted", remote.url, { roots: [] })] });
    expect(text(await host.callTool("rooted.get-roots-list", {}))).toContain("no roots are currently configured");
    expect(await host.setRoots("rooted", [{ uri: "file:///srv/new" }])).toBe(true);
    // The server's roots/list rides its own stream; a call may overtake it, so it is repeated until it shows.
    let seen = "";
    for (let i = 0; i < 50 && !seen.includes("file:///srv/new"); i++) seen = text(await host.callTool("rooted.get-roots-list", {}));
    expect(seen).toContain("Current MCP Roots (1 total)");
  });
});
