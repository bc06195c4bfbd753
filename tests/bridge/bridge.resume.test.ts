// Resumability (MCP 2025-11-25, Streamable HTTP, "Resumability and Redelivery"): SSE
// event ids, a `retry` field, and GET + Last-Event-ID replaying what a stream sent
// while its connection was down, then carrying on. Against the real bridge and
// server-everything's long-running tool (one progress notification per step), with
// the SDK's own client (automatic reconnect; a resumption token in a new client) and
// with raw HTTP.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { startBridge, type RunningBridge } from "../fixtures/bridge";
import { ProbeLog } from "../fixtures/probe-log";
import { everythingBin, probeServerBin } from "../fixtures/servers";
import { cuttingHop, raw, type CuttingHop, type SseBlock } from "./raw-sse";

let bridge: RunningBridge;
let hop: CuttingHop;
const log = new ProbeLog();
beforeAll(async () => {
  bridge = await startBridge(
    {
      everything: { command: process.execPath, args: [everythingBin, "stdio"] },
      probe: { command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: log.path } },
    },
    ["--sse-stream"],
  );
  hop = await cuttingHop(bridge.url);
});
afterAll(async () => {
  await hop?.close();
  expect(await bridge.stop()).toBe(0);
});

const BOTH = "application/json, text/event-stream";
const LONG = { name: "trigger-long-running-operation", arguments: { duration: 1.2, steps: 4 } };
const auth = () => ({ authorization: `Bearer ${bridge.token}` });
const message = (b: SseBlock) =>
  b.data ? (JSON.parse(b.data) as { id?: unknown; method?: string; params?: { progress?: number }; result?: unknown }) : undefined;
const isProgress = (b: SseBlock) => message(b)?.method === "notifications/progress";

async function sdkClient(
  base: string,
  options: { sessionId?: string; capabilities?: ClientCapabilities } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/servers/everything/mcp`), {
    requestInit: { headers: auth() },
    sessionId: options.sessionId,
  });
  const client = new Client({ name: "resume-test", version: "1" }, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, transport };
}

/** A raw initialize (+ initialized) with `version`; returns the session id. */
async function rawSession(server: string, version = "2025-11-25"): Promise<string> {
  const url = `${bridge.url}/servers/${server}/mcp`;
  const init = await raw(url, {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json", accept: BOTH },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  await init.ended;
  const id = String(init.headers["mcp-session-id"]);
  const headers = { ...auth(), "content-type": "application/json", accept: BOTH, "mcp-session-id": id };
  await (await raw(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).ended;
  return id;
}

describe("bridge: resumable SSE streams", () => {
  it("the SDK client, its POST stream cut after the first progress, reconnects with Last-Event-ID and gets the rest", async () => {
    const { client } = await sdkClient(hop.url);
    const seenBefore = hop.seen.length;
    const progress: number[] = [];
    const cut = hop.cutAfter(/notifications\/progress/);
    const call = client.callTool(LONG, undefined, { onprogress: (p) => void progress.push(p.progress) });
    await cut;
    const result = await call;
    expect(JSON.stringify(result.content)).toContain("Long running operation completed");
    // Every step arrived once: what was sent while the connection was down came in the replay.
    expect(progress).toEqual([1, 2, 3, 4]);
    const resumed = hop.seen.slice(seenBefore).filter((r) => r.method === "GET" && r.lastEventId !== undefined);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]?.lastEventId).toMatch(/^\d+_\d+$/);
  });

  it("a new SDK client on the same session resumes the call with the resumption token of the first", async () => {
    const first = await sdkClient(hop.url);
    const sessionId = first.transport.sessionId ?? "";
    const cut = hop.cutAfter(/notifications\/progress/);
    let onToken: (token: string) => void = () => undefined;
    const tokenSeen = new Promise<string>((resolve) => (onToken = resolve));
    const call = first.client.request({ method: "tools/call", params: LONG }, CallToolResultSchema, {
      onprogress: () => undefined,
      onresumptiontoken: (t) => onToken(t),
    });
    call.catch(() => undefined);
    const [token] = await Promise.all([tokenSeen, cut]);
    // The first client goes away before it can reconnect (as a crashed process would).
    await first.client.close();
    expect(token).toMatch(/^\d+_\d+$/);

    const second = await sdkClient(bridge.url, { sessionId });
    const result = await second.client.request({ method: "tools/call", params: LONG }, CallToolResultSchema, { resumptionToken: token });
    expect(JSON.stringify(result.content)).toContain("Long running operation completed");
  });

  it("raw HTTP: event ids and retry on the POST stream; GET + Last-Event-ID replays the missed tail; an ended stream has nothing to resume", async () => {
    const sessionId = await rawSession("everything");
    const url = `${bridge.url}/servers/everything/mcp`;
    const headers = { ...auth(), accept: BOTH, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { ...LONG, _meta: { progressToken: "p" } } };
    const post = await raw(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(call) });
    expect(post.headers["content-type"]).toBe("text/event-stream");
    const first = await post.next(isProgress);
    expect(post.blocks[0]?.retry).toBe(1000);
    expect(first.id).toMatch(/^\d+_\d+$/);
    post.drop();
    await expect(post.ended).rejects.toThrow();

    const resumed = await raw(url, { method: "GET", headers: { ...headers, accept: "text/event-stream", "last-event-id": first.id ?? "" } });
    expect(resumed.status).toBe(200);
    await resumed.ended;
    const events = resumed.blocks.filter((b) => b.data);
    expect(resumed.blocks[0]?.retry).toBe(1000);
    expect(events.map((b) => message(b)?.params?.progress ?? "final")).toEqual([2, 3, 4, "final"]);
    expect(message(events.at(-1) as SseBlock)).toMatchObject({ id: 7, result: { content: [{ text: expect.stringContaining("completed") }] } });
    // Ids stay on the original stream and grow.
    const stream = (id?: string) => id?.split("_")[0];
    const seq = (id?: string) => Number(id?.split("_")[1]);
    expect(new Set(events.map((b) => stream(b.id)))).toEqual(new Set([stream(first.id)]));
    expect(events.map((b) => seq(b.id))).toEqual([...events.map((b) => seq(b.id))].sort((a, b) => a - b));
    expect(seq(events[0]?.id)).toBeGreaterThan(seq(first.id));

    // Everything was delivered: nothing is left on that stream; a made-up id is refused.
    const again = await raw(url, { method: "GET", headers: { ...headers, accept: "text/event-stream", "last-event-id": events.at(-1)?.id ?? "" } });
    await again.ended;
    expect(again.status).toBe(405);
    expect(JSON.parse(again.text())).toMatchObject({ jsonrpc: "2.0", id: null, error: { message: expect.stringMatching(/^nothing to resume after event/) } });
    const bogus = await raw(url, { method: "GET", headers: { ...headers, accept: "text/event-stream", "last-event-id": "not-an-id" } });
    await bogus.ended;
    expect(bogus.status).toBe(400);
  });

  it("the standalone GET stream (--sse-stream): a priming event id, and what was sent while it was down replayed on resume", async () => {
    const sessionId = await rawSession("probe");
    const url = `${bridge.url}/servers/probe/mcp`;
    const headers = { ...auth(), accept: "text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const stream = await raw(url, { method: "GET", headers });
    const priming = await stream.next((b) => b.id !== undefined);
    expect(priming).toMatchObject({ data: "", retry: 1000, id: expect.stringMatching(/^\d+_\d+$/) });
    stream.drop();
    await expect(stream.ended).rejects.toThrow();

    // Another session's call makes the probe announce list_changed to every session.
    const other = new Client({ name: "other", version: "1" });
    await other.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth() } }));
    onTestFinished(() => other.close());
    await other.callTool({ name: "add_tool", arguments: { name: `t${Date.now()}` } });

    const resumed = await raw(url, { method: "GET", headers: { ...headers, "last-event-id": priming.id ?? "" } });
    expect(resumed.status).toBe(200);
    const replayed = await resumed.next((b) => message(b)?.method === "notifications/tools/list_changed");
    expect(replayed.id?.split("_")[0]).toBe(priming.id?.split("_")[0]);
    resumed.drop();
  });

  it("a session on a protocol before 2025-11-25 gets no empty-data priming event on its standalone stream", async () => {
    const sessionId = await rawSession("probe", "2025-06-18");
    const stream = await raw(`${bridge.url}/servers/probe/mcp`, {
      method: "GET",
      headers: { ...auth(), accept: "text/event-stream", "mcp-session-id": sessionId },
    });
    const opening = await stream.next();
    expect(opening).toMatchObject({ comment: "stream open", retry: 1000, data: "" });
    expect(opening.id).toBeUndefined();
    stream.drop();
  });
});
