// The bridge checks JSON-RPC messages without the SDK's zod schemas (local-bridge/src/messages.ts,
// to keep zod out of its memory). These tests hold it to the SDK: the same verdict as
// JSONRPCMessageSchema on a corpus of real and broken messages and on seeded mutations of
// them, and the same protocol versions.
import { JSONRPCMessageSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import * as bridge from "../../local-bridge/src/messages";

const corpus: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } },
  { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "echo", arguments: { message: "x" }, _meta: { progressToken: "p" } } },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 3, progress: 1, total: 2 } },
  { jsonrpc: "2.0", id: 3, result: {} },
  { jsonrpc: "2.0", id: 3, result: { content: [], _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } } },
  { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } },
  { jsonrpc: "2.0", error: { code: -32700, message: "Parse error", data: { at: 1 } } },
  { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
  { jsonrpc: "2.0", id: 5, error: { code: 1.5, message: "x" } },
  { jsonrpc: "2.0", id: 5, error: { code: 1, message: "x", extra: true } },
  { jsonrpc: "1.0", id: 1, method: "ping" },
  { id: 1, method: "ping" },
  { jsonrpc: "2.0", id: 1.5, method: "ping" },
  { jsonrpc: "2.0", id: 2 ** 60, method: "ping" },
  { jsonrpc: "2.0", id: true, method: "ping" },
  { jsonrpc: "2.0", id: 1, method: 7 },
  { jsonrpc: "2.0", id: 1, method: "ping", params: [] },
  { jsonrpc: "2.0", id: 1, method: "ping", params: null },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: null } } },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: "no" } },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { "io.modelcontextprotocol/related-task": {} } } },
  { jsonrpc: "2.0", id: 1, method: "ping", extra: 1 },
  { jsonrpc: "2.0", method: "note", id: undefined },
  { jsonrpc: "2.0", id: 1, result: [] },
  { jsonrpc: "2.0", id: 1, result: null },
  { jsonrpc: "2.0", result: {} },
  { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "both" } },
  { jsonrpc: "2.0", id: 1, method: "x", result: {} },
  { jsonrpc: "2.0" },
  [],
  null,
  "text",
  42,
];

/** Seeded mutations: drop, retype or add a field, at the top or one level down. */
function mutations(seed: number, count: number): unknown[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
  const values: unknown[] = [null, 0, -1, 1.25, 2 ** 53, "", "2.0", true, [], {}, { a: 1 }, "x"];
  const keys = ["jsonrpc", "id", "method", "params", "result", "error", "code", "message", "data", "_meta", "progressToken", "other"];
  const out: unknown[] = [];
  const objects = corpus.filter((c): c is Record<string, unknown> => typeof c === "object" && c !== null && !Array.isArray(c));
  for (let i = 0; i < count; i++) {
    const copy = structuredClone(objects[next(objects.length)]) as Record<string, unknown>;
    const nested = Object.values(copy).filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v));
    const target = nested.length > 0 && next(2) === 0 ? (nested[next(nested.length)] as Record<string, unknown>) : copy;
    const key = next(3) === 0 ? (Object.keys(target)[next(Math.max(1, Object.keys(target).length))] ?? "x") : (keys[next(keys.length)] as string);
    if (next(3) === 0) delete target[key];
    else target[key] = values[next(values.length)];
    out.push(copy);
  }
  return out;
}

describe("bridge JSON-RPC checks", () => {
  it("agree with the SDK's JSONRPCMessageSchema on real and broken messages", () => {
    for (const value of corpus)
      expect({ value, ok: bridge.parseMessage(value) !== undefined }).toEqual({ value, ok: JSONRPCMessageSchema.safeParse(value).success });
  });

  it("agree with it on 5,000 seeded mutations", () => {
    const disagreements = mutations(7, 5_000).filter((value) => (bridge.parseMessage(value) !== undefined) !== JSONRPCMessageSchema.safeParse(value).success);
    expect(disagreements).toEqual([]);
  });

  it("speak the SDK's protocol versions", () => {
    expect(bridge.LATEST_PROTOCOL_VERSION).toBe(LATEST_PROTOCOL_VERSION);
    expect(bridge.SUPPORTED_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
  });
});
