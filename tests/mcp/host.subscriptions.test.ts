// Change notifications on an MCP 2026-07-28 connection (issue 34): there is no GET
// stream, so the host opens `subscriptions/listen` (the SDK's client.listen) and the
// catalogue and the resources it watches stay fresh as they do on 2025. The SDK's v2
// server serving 2026 only (`legacy: "reject"`, tests/fixtures/v2-server.mjs): its `grow`
// adds a tool, its `touch` changes note://board, `POST /drop-listens` ends the streams.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribe, unsubscribe } from "../../src/mcp/catalog";
import type { McpHost } from "../../src/mcp/host";
import { nextChange, testHost } from "../fixtures/host";
import { httpServer } from "../fixtures/servers";
import { startV2Server, type RunningV2Server } from "../fixtures/v2-servers";

let modern: RunningV2Server;
beforeAll(async () => {
  modern = await startV2Server("modern");
});
afterAll(async () => {
  await modern?.stop();
});

const text = (result: { contents: unknown[] }) => (result.contents[0] as { text: string }).text;
const toolNames = (host: McpHost) => host.tools().map((t) => t.qualifiedName);

async function modernHost(): Promise<McpHost> {
  const { host } = testHost();
  expect(await host.connect({ servers: [httpServer("srv", modern.url)] })).toEqual({ ready: ["srv"], failed: [] });
  expect(host.servers()[0]?.protocol).toBe("2026-07-28");
  return host;
}

function nextUpdate(host: McpHost): Promise<{ server: string; uri: string }> {
  return new Promise((resolve) => {
    const off = host.onResourceUpdated((server, uri) => {
      off();
      resolve({ server, uri });
    });
  });
}

describe("change notifications over subscriptions/listen", () => {
  it("hears tools/list_changed from a 2026-only server and offers the new tool", async () => {
    const host = await modernHost();
    expect(host.connectionFor("srv")?.changes.listening).toBe(true);
    expect(toolNames(host)).not.toContain("srv.heron");
    const changed = nextChange(host, "srv", "tools");
    await host.callTool("srv.grow", { name: "heron" });
    await changed;
    expect(toolNames(host)).toContain("srv.heron");
    expect((await host.callTool("srv.heron", {})).content).toEqual([{ type: "text", text: "heron" }]);
  });

  it("hears resources/updated for a subscribed resource, and its cached copy is read again", async () => {
    const host = await modernHost();
    await host.callTool("srv.touch", { text: "first" });
    expect(text(await host.readResource("note://board", { server: "srv" }))).toBe("first");
    await subscribe(host, "srv", "note://board");
    const updated = nextUpdate(host);
    await host.callTool("srv.touch", { text: "second" });
    expect(await updated).toEqual({ server: "srv", uri: "note://board" });
    // Without the notification the cached "first" would still be served.
    expect(text(await host.readResource("note://board", { server: "srv" }))).toBe("second");

    // Unsubscribed: the stream is opened again without the resource, and a change is no longer told.
    await unsubscribe(host, "srv", "note://board");
    let heard = false;
    host.onResourceUpdated(() => {
      heard = true;
    });
    const tools = nextChange(host, "srv", "tools");
    await host.callTool("srv.touch", { text: "third" });
    // A later notification on the same stream arrives after the update would have.
    await host.callTool("srv.grow", { name: "egret" });
    await tools;
    expect(heard).toBe(false);
  });

  it("opens the stream again when the server ends it, and reads the lists again", async () => {
    const host = await modernHost();
    const listens = async () => (await modern.methods()).filter((m) => m === "subscriptions/listen").length;
    const before = await listens();
    // The drop is followed by a re-read of the lists (what changed meanwhile was never told).
    const reread = nextChange(host, "srv", "tools");
    await modern.dropListens();
    await reread;
    expect(await listens()).toBeGreaterThan(before);
    expect(host.connectionFor("srv")?.changes.listening).toBe(true);
    // And the reopened stream carries notifications.
    const changed = nextChange(host, "srv", "tools");
    await host.callTool("srv.grow", { name: "stork" });
    await changed;
    expect(toolNames(host)).toContain("srv.stork");
  });

  it("ends the stream when the host closes", async () => {
    const host = await modernHost();
    const connection = host.connectionFor("srv");
    expect(connection?.changes.listening).toBe(true);
    await host.close();
    expect(connection?.changes.listening).toBe(false);
  });
});
