// Requests a server sends to McpHost (sampling, elicitation, roots). Through the real
// bridge, as the Worker reaches stdio servers: the bridge passes each request to the
// session whose call caused it. Capability advertising is per client session only on a
// remote server reached directly (the bridge's children always get the bridge's own
// capabilities), so those tests use server-everything's own Streamable HTTP transport.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpHost } from "../../src/mcp/host";
import type { ServerRequestHandlers } from "../../src/mcp/server-requests";
import { bridgedHost, testHost } from "../fixtures/host";
import { startEverythingHttp, type RunningServer } from "../fixtures/http-servers";
import { everythingServer, httpServer } from "../fixtures/servers";

let remote: RunningServer;
beforeAll(async () => {
  remote = await startEverythingHttp("streamableHttp");
});
afterAll(async () => {
  await remote?.stop();
});

async function bridgedEverything(handlers: ServerRequestHandlers): Promise<McpHost> {
  const { host, config } = await bridgedHost([everythingServer("ev")]);
  host.onServerRequest(handlers);
  await host.connect(config);
  return host;
}

async function remoteEverything(handlers: ServerRequestHandlers): Promise<McpHost> {
  const { host } = testHost();
  host.onServerRequest(handlers);
  await host.connect({ servers: [httpServer("ev", remote.url)] });
  return host;
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("McpHost server-initiated requests", () => {
  it("hands sampling/createMessage to the hook with the asking server and returns its answer", async () => {
    const seen: { server: string; text: unknown; maxTokens: number }[] = [];
    const host = await bridgedEverything({
      sampling: async ({ server, params }) => {
        seen.push({ server, text: (params.messages[0]?.content as { text?: string } | undefined)?.text, maxTokens: params.maxTokens });
        return { role: "assistant", model: "fake-model", content: { type: "text", text: "sampled answer" } };
      },
    });
    const result = await host.callTool("ev.trigger-sampling-request", { prompt: "summarise", maxTokens: 42 });
    expect(seen).toEqual([{ server: "ev", text: expect.stringContaining("summarise"), maxTokens: 42 }]);
    expect(text(result)).toContain("sampled answer");
  });

  it("hands elicitation/create to the hook and returns the user's answer to the server", async () => {
    const host = await bridgedEverything({
      elicitation: async ({ server, params }) => {
        expect(server).toBe("ev");
        expect(params.message).toBe("Please provide inputs for the following fields:");
        return { action: "accept", content: { name: "Ada Lovelace", check: true } };
      },
    });
    const result = await host.callTool("ev.trigger-elicitation-request", {});
    expect(JSON.stringify(result.content)).toContain("Ada Lovelace");
  });

  it("tells the server when the user declines", async () => {
    const host = await bridgedEverything({ elicitation: async () => ({ action: "decline" }) });
    const result = await host.callTool("ev.trigger-elicitation-request", {});
    expect(JSON.stringify(result.content)).toMatch(/decline/i);
  });

  it("passes a hook failure back to the server as an error, and the server stays ready", async () => {
    const host = await bridgedEverything({
      sampling: async () => {
        throw new Error("the user refused sampling");
      },
    });
    const outcome = await host.callTool("ev.trigger-sampling-request", { prompt: "x" }).then(
      (r) => JSON.stringify(r),
      (e: unknown) => String(e),
    );
    expect(outcome).toContain("the user refused sampling");
    expect(host.servers()[0]?.state).toBe("ready");
  });

  it("answers roots/list with the configured roots", async () => {
    const host = await remoteEverything({ roots: () => [{ uri: "file:///srv/project", name: "project" }] });
    const result = await host.callTool("ev.get-roots-list", {});
    expect(JSON.stringify(result.content)).toContain("file:///srv/project");
  });

  it("advertises only what it serves: the conditional tools appear with their handlers and never without", async () => {
    const served = await remoteEverything({
      sampling: async () => ({ role: "assistant", model: "m", content: { type: "text", text: "x" } }),
      elicitation: async () => ({ action: "decline" }),
      roots: () => [],
    });
    expect(served.tools().map((t) => t.name)).toEqual(expect.arrayContaining(["trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"]));
    const names = (await remoteEverything({})).tools().map((t) => t.name);
    expect(names).not.toContain("trigger-sampling-request");
    expect(names).not.toContain("trigger-elicitation-request");
    expect(names).not.toContain("get-roots-list");
  });
});
