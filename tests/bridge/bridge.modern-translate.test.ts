// What a 2026 client meets when the bridge translates for a 2025 child (the conformance
// scenarios server-stateless, http-custom-header-server-validation and
// input-required-result-*): refusals answer the request's own id, a question the child
// names (`_meta["edgehost.bridge/inputKey"]`) is asked under that name, a call the child fails after asking for a capability
// the client did not declare ends in the revision's missing-capability error, and a
// tool's `x-mcp-header` argument must come in its `Mcp-Param-*` header too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "../fixtures/bridge";
import { envelope, MODERN, modernHeaders, postRaw } from "../fixtures/bridge-modern";
import { repoRoot } from "../fixtures/servers";

const askingBin = `${repoRoot}/tests/fixtures/asking-server.mjs`;
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge({ asking: { command: process.execPath, args: [askingBin] } }, ["--no-watch"]);
});
afterAll(async () => {
  await bridge?.stop();
});

const request = (id: number, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params: { ...params, _meta: envelope(capabilities) },
});
const callTool = (id: number, name: string, args: Record<string, unknown>, capabilities: Record<string, unknown> = {}) =>
  request(id, "tools/call", { name, arguments: args }, capabilities);

describe("bridge, 2026 translation for a 2025 child", () => {
  it("answers a refused request with the request's own id", async () => {
    const missingMeta = await postRaw(bridge, "asking", { jsonrpc: "2.0", id: 101, method: "server/discover", params: {} }, modernHeaders("server/discover"));
    expect(missingMeta.status).toBe(400);
    expect(missingMeta.json).toMatchObject({ id: 101, error: { code: -32602 } });

    const future = { ...request(301, "server/discover", {}), params: { _meta: { ...envelope(), "io.modelcontextprotocol/protocolVersion": "v999.0.0" } } };
    const unsupported = await postRaw(bridge, "asking", future, { "mcp-protocol-version": "v999.0.0", "mcp-method": "server/discover" });
    expect(unsupported.status).toBe(400);
    expect(unsupported.json).toMatchObject({ id: 301, error: { code: -32022, data: { requested: "v999.0.0", supported: expect.arrayContaining([MODERN]) } } });
  });

  it("asks the child's question under the name the child gave it", async () => {
    const first = await postRaw(bridge, "asking", callTool(1, "ask_named", {}, { elicitation: {} }), modernHeaders("tools/call", "ask_named"));
    expect(first.json.result).toMatchObject({ resultType: "input_required", inputRequests: { user_name: { method: "elicitation/create" } } });
    // The naming key is the bridge's business: the rest of the question's _meta is passed on.
    expect(first.json.result.inputRequests.user_name.params._meta).toEqual({ "example/kept": 1 });
    const retry = callTool(2, "ask_named", {}, { elicitation: {} });
    Object.assign(retry.params, {
      inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
      requestState: first.json.result.requestState,
    });
    const done = await postRaw(bridge, "asking", retry, modernHeaders("tools/call", "ask_named"));
    expect(done.json.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Hello, Ada!" }] });
  });

  it("gives a new call's question to that call, not to one still waiting for its client", async () => {
    const held = await postRaw(bridge, "asking", callTool(4, "ask_named", {}, { elicitation: {} }), modernHeaders("tools/call", "ask_named"));
    expect(held.json.result.resultType).toBe("input_required");
    // The first call waits for a retry that never comes; the second is answered all the same.
    const next = await postRaw(bridge, "asking", callTool(5, "ask_named", {}, { elicitation: {} }), modernHeaders("tools/call", "ask_named"));
    expect(next.json).toMatchObject({ id: 5, result: { resultType: "input_required", inputRequests: { user_name: { method: "elicitation/create" } } } });
    expect(next.json.result.requestState).not.toBe(held.json.result.requestState);
  });

  it("ends a call the child failed for want of sampling with -32021 naming it, HTTP 400", async () => {
    const answer = await postRaw(bridge, "asking", callTool(3, "needs_sampling", {}), modernHeaders("tools/call", "needs_sampling"));
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ id: 3, error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } });
  });

  it("checks a tool's Mcp-Param-* header against its argument, with no tools/list asked before", async () => {
    const locate = (id: number, extra: Record<string, string>, args: Record<string, unknown> = { region: "Hello" }) =>
      postRaw(bridge, "asking", callTool(id, "locate", args), { ...modernHeaders("tools/call", "locate"), ...extra });
    const base64 = `=?base64?${Buffer.from("Hello").toString("base64")}?=`;
    expect((await locate(10, { "mcp-param-region": base64 })).json.result.content).toEqual([{ type: "text", text: "region=Hello" }]);
    expect((await locate(11, { "Mcp-Param-Region": " Hello " })).json.result.content).toEqual([{ type: "text", text: "region=Hello" }]);
    for (const [id, headers] of [
      [12, {}],
      [13, { "mcp-param-region": "=?base64?SGVsbG8?=" }],
      [14, { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" }],
      [15, { "mcp-param-region": "Elsewhere" }],
    ] as const) {
      const refused = await locate(id, headers);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ id, error: { code: -32020, data: { mismatch: { header: "Mcp-Param-Region" } } } });
    }
    // An argument left out needs no header.
    expect((await locate(16, {}, {})).status).toBe(200);
  });
});
