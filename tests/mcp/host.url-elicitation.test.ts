// URL-mode elicitation through McpHost, in both eras, against a real v2-SDK server
// (tests/fixtures/url-elicitation-server.mjs): the host declares URL mode, a server's URL
// question reaches the one elicitation handler (2025-11-25: an `elicitation/create` request;
// 2026-07-28: inside an input_required result, which the SDK turns into the same call), the
// person's `accept` goes back, and the call goes on once the person finished at the URL
// (2025: after `notifications/elicitation/complete`, which the host hears; 2026: the retry).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ElicitRequest } from "@modelcontextprotocol/client";
import type { McpHost } from "../../src/mcp/host";
import type { ServerRequestHandlers } from "../../src/mcp/server-requests";
import { testHost } from "../fixtures/host";
import { startEverythingHttp, type RunningServer } from "../fixtures/http-servers";
import { httpServer } from "../fixtures/servers";
import { startUrlServer, type RunningUrlServer } from "../fixtures/url-elicitation-servers";

let server: RunningUrlServer;
let everything: RunningServer;
beforeAll(async () => {
  [server, everything] = await Promise.all([startUrlServer(), startEverythingHttp("streamableHttp")]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), everything?.stop()]);
});

type Params = ElicitRequest["params"];

/** A host with URL mode whose person answers `action`; `asked` resolves with the first question's params. */
async function hostFor(url: string, action: "accept" | "decline") {
  const { host } = testHost();
  const completed: string[] = [];
  let heard!: (params: Params) => void;
  const asked = new Promise<Params>((resolve) => (heard = resolve));
  const handlers: ServerRequestHandlers = {
    elicitation: async ({ server: name, params }) => {
      expect(name).toBe("u");
      heard(params);
      return { action };
    },
    elicitationComplete: ({ server: name, elicitationId }) => completed.push(`${name}:${elicitationId}`),
  };
  host.onServerRequest(handlers);
  await host.connect({ servers: [httpServer("u", url)] });
  return { host, asked, completed };
}

const text = (result: Awaited<ReturnType<McpHost["callTool"]>>) => (result.content[0] as { text: string }).text;

describe("URL-mode elicitation", () => {
  it("2026-07-28: the question arrives in an input_required result; the retry carries accept and the call ends once the person finished", async () => {
    const { host, asked, completed } = await hostFor(server.modernUrl, "accept");
    expect(host.servers()[0]).toMatchObject({ state: "ready", protocol: "2026-07-28" });
    const call = host.callTool("u.connect", {});
    const params = await asked;
    expect(params).toMatchObject({ mode: "url", message: "Connect your account to go on.", url: `${server.base}/connect?state=s3cret-state` });
    expect("elicitationId" in params).toBe(false);
    let ended = false;
    void call.finally(() => (ended = true));
    // The server holds the retry until the person finished at its page.
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    await server.complete();
    expect(text(await call)).toBe("connected");
    expect(completed).toEqual([]);
  });

  it("2025-11-25: an elicitation/create request with an elicitationId, then notifications/elicitation/complete for it", async () => {
    const { host, asked, completed } = await hostFor(server.legacyUrl, "accept");
    expect(host.servers()[0]?.protocol).toBe("2025-11-25");
    const call = host.callTool("u.connect", {});
    const params = await asked;
    expect(params).toMatchObject({ mode: "url", url: `${server.base}/connect?state=s3cret-state`, elicitationId: expect.any(String) });
    await server.complete();
    expect(text(await call)).toBe("connected");
    expect(completed).toEqual([`u:${(params as { elicitationId: string }).elicitationId}`]);
  });

  it.each([
    ["2026-07-28", "modernUrl"],
    ["2025-11-25", "legacyUrl"],
  ] as const)("%s: the person's decline reaches the server", async (_era, which) => {
    const { host } = await hostFor(server[which], "decline");
    expect(text(await host.callTool("u.connect", {}))).toBe("not connected (decline)");
  });

  it("2025-11-25: a call refused with -32042 is asked about, then sent once more after the server said the URL is complete", async () => {
    const { host } = testHost();
    const completed: string[] = [];
    const listed: unknown[] = [];
    let heard: () => void = () => undefined;
    host.onServerRequest({
      elicitation: async () => ({ action: "decline" }),
      elicitationComplete: ({ elicitationId }) => {
        completed.push(elicitationId);
        heard();
      },
      urlElicitationRequired: async ({ server: name, elicitations }) => {
        expect(name).toBe("u");
        listed.push(...elicitations);
        // The person agreed and finished at the page; the server says so on its own stream.
        const told = new Promise<void>((resolve) => (heard = resolve));
        await server.completeGate();
        await told;
        return true;
      },
    });
    await host.connect({ servers: [httpServer("u", server.legacyUrl)] });
    expect(text(await host.callTool("u.gated", {}))).toBe("the gate is open");
    expect(listed).toEqual([
      { mode: "url", elicitationId: expect.any(String), url: `${server.base}/connect?state=s3cret-state`, message: "Sign in at the gate first." },
    ]);
    expect(completed).toEqual([(listed[0] as { elicitationId: string }).elicitationId]);
  });

  it("2025-11-25: a -32042 the person does not go through with fails the call, saying why, without a retry", async () => {
    const { host } = testHost();
    let asked = 0;
    host.onServerRequest({
      elicitation: async () => ({ action: "decline" }),
      elicitationComplete: () => undefined,
      urlElicitationRequired: async () => {
        asked++;
        return "the person declined to open 127.0.0.1";
      },
    });
    await host.connect({ servers: [httpServer("u", server.legacyUrl)] });
    await expect(host.callTool("u.gated", {})).rejects.toMatchObject({
      code: "protocol",
      rpcCode: -32042,
      message: "u: the person declined to open 127.0.0.1",
    });
    expect(asked).toBe(1);
  });

  it("declares URL mode only with a completion handler: without one, the server knows not to ask", async () => {
    const { host } = testHost();
    let asked = 0;
    host.onServerRequest({
      elicitation: async () => {
        asked++;
        return { action: "accept" };
      },
    });
    await host.connect({ servers: [httpServer("u", server.legacyUrl)] });
    const outcome = await host.callTool("u.connect", {}).then(
      (r) => JSON.stringify(r),
      (e: unknown) => String(e),
    );
    expect(asked).toBe(0);
    expect(outcome).toContain("Client does not support url elicitation");
  });

  it("server-everything (the reference server, SDK v1): its URL request, and its -32042 prerequisite then the retried call", async () => {
    const { host } = testHost();
    const asked: Params[] = [];
    const required: unknown[] = [];
    host.onServerRequest({
      elicitation: async ({ params }) => {
        asked.push(params);
        return { action: "accept" };
      },
      elicitationComplete: () => undefined,
      // It never says the prerequisite is complete: the person's "I'm done" stands for it here.
      urlElicitationRequired: async ({ elicitations }) => {
        required.push(...elicitations);
        return true;
      },
    });
    await host.connect({ servers: [httpServer("ev", everything.url)] });
    const url = "https://example.com/authorize?state=abc";
    const direct = await host.callTool("ev.trigger-url-elicitation", { url, message: "Authorize." });
    expect(JSON.stringify(direct.content)).toContain("User completed the URL elicitation flow");
    expect(asked).toEqual([expect.objectContaining({ mode: "url", url, message: "Authorize.", elicitationId: expect.any(String) })]);

    asked.length = 0;
    const gated = await host.callTool("ev.trigger-url-elicitation", { url, errorPath: true });
    expect(required).toEqual([expect.objectContaining({ mode: "url", url: "https://modelcontextprotocol.io", elicitationId: expect.any(String) })]);
    // The retry went through the request path: one more URL question, then the tool's result.
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(gated.content)).toContain("User completed the URL elicitation flow");
  });
});
