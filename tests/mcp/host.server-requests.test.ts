import { afterEach, describe, expect, it } from "vitest";
import type { McpHost } from "../../src/mcp/host";
import type { ServerRequestHandlers } from "../../src/mcp/server-requests";
import { testHost } from "../fixtures/host";
import { everythingServer } from "../fixtures/servers";

let host: McpHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

async function connectEverything(handlers: ServerRequestHandlers): Promise<McpHost> {
  const made = testHost();
  host = made.host;
  made.host.onServerRequest(handlers);
  await made.host.connect({ servers: [everythingServer("ev")] });
  return made.host;
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("McpHost server-initiated requests", () => {
  it("hands sampling/createMessage to the hook with the asking server and returns its answer", async () => {
    const seen: { server: string; text: unknown; maxTokens: number }[] = [];
    const host = await connectEverything({
      sampling: async ({ server, params }) => {
        seen.push({ server, text: (params.messages[0]?.content as { text?: string }).text, maxTokens: params.maxTokens });
        return { role: "assistant", model: "fake-model", content: { type: "text", text: "sampled answer" } };
      },
    });
    const result = await host.callTool("ev.trigger-sampling-request", { prompt: "summarise", maxTokens: 42 });
    expect(seen).toEqual([{ server: "ev", text: expect.stringContaining("summarise"), maxTokens: 42 }]);
    expect(text(result)).toContain("sampled answer");
  });

  it("hands elicitation/create to the hook and returns the user's answer to the server", async () => {
    const host = await connectEverything({
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
    const host = await connectEverything({ elicitation: async () => ({ action: "decline" }) });
    const result = await host.callTool("ev.trigger-elicitation-request", {});
    expect(JSON.stringify(result.content)).toMatch(/decline/i);
  });

  it("answers roots/list with the configured roots", async () => {
    const host = await connectEverything({ roots: () => [{ uri: "file:///srv/project", name: "project" }] });
    const result = await host.callTool("ev.get-roots-list", {});
    expect(JSON.stringify(result.content)).toContain("file:///srv/project");
  });

  it("advertises only what it serves: without handlers the conditional tools never appear", async () => {
    const host = await connectEverything({});
    const names = host.tools().map((t) => t.name);
    expect(names).not.toContain("trigger-sampling-request");
    expect(names).not.toContain("trigger-elicitation-request");
    expect(names).not.toContain("get-roots-list");
  });

  it("passes a hook failure back to the server as an error, and the server stays ready", async () => {
    const host = await connectEverything({
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
});
