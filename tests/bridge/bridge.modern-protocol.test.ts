// The bridge decides the era of a POST with its own zod-free classifier
// (local-bridge/src/modern-protocol.ts); the v2 SDK's `classifyInboundRequest` is the
// reference. Both run over the same requests here, so an SDK upgrade that changes the
// rules fails this test. Bodies the SDK rejects as not JSON-RPC the bridge hands to its
// 2025 path, which refuses them with the same status and code.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { classify, META, type ModernHeaders } from "../../local-bridge/src/modern-protocol";

const V = "2026-07-28";
const env = (extra: Record<string, unknown> = {}) => ({ [PROTOCOL_VERSION_META_KEY]: V, [CLIENT_CAPABILITIES_META_KEY]: {}, ...extra });
const req = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const note = (method: string, params?: unknown) => ({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });

const CASES: Array<[string, ModernHeaders, unknown]> = [
  ["2025 initialize", {}, req("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } })],
  ["initialize with a modern header", { protocolVersion: V }, req("initialize", { protocolVersion: "2025-11-25" })],
  ["initialize with a modern envelope", { protocolVersion: V, method: "initialize" }, req("initialize", { _meta: env() })],
  ["2025 call", { protocolVersion: "2025-11-25" }, req("tools/call", { name: "echo" })],
  ["2025 call, no header", {}, req("tools/list")],
  ["2026 call", { protocolVersion: V, method: "tools/call", name: "echo" }, req("tools/call", { name: "echo", _meta: env() })],
  ["2026 call, no headers", {}, req("tools/list", { _meta: env() })],
  [
    "2026 with client info and log level",
    { protocolVersion: V },
    req("tools/list", { _meta: env({ [CLIENT_INFO_META_KEY]: { name: "a", version: "1" }, [LOG_LEVEL_META_KEY]: "info" }) }),
  ],
  ["bad client info", { protocolVersion: V }, req("tools/list", { _meta: env({ [CLIENT_INFO_META_KEY]: { name: "a" } }) })],
  ["bad log level", { protocolVersion: V }, req("tools/list", { _meta: env({ [LOG_LEVEL_META_KEY]: "loud" }) })],
  ["envelope without capabilities", { protocolVersion: V }, req("tools/list", { _meta: { [PROTOCOL_VERSION_META_KEY]: V } })],
  ["envelope with a numeric version", {}, req("tools/list", { _meta: { [PROTOCOL_VERSION_META_KEY]: 2026, [CLIENT_CAPABILITIES_META_KEY]: {} } })],
  ["capabilities not an object", {}, req("tools/list", { _meta: env({ [CLIENT_CAPABILITIES_META_KEY]: [] }) })],
  ["header and envelope disagree", { protocolVersion: "2025-11-25" }, req("tools/list", { _meta: env() })],
  ["Mcp-Method disagrees", { protocolVersion: V, method: "tools/call" }, req("tools/list", { _meta: env() })],
  ["modern header, no envelope", { protocolVersion: V }, req("tools/list")],
  ["modern header, _meta without the claim", { protocolVersion: V }, req("tools/list", { _meta: { progressToken: 1 } })],
  ["a future revision", { protocolVersion: "2099-01-01" }, req("tools/list", { _meta: env({ [PROTOCOL_VERSION_META_KEY]: "2099-01-01" }) })],
  ["an old revision in the envelope", {}, req("tools/list", { _meta: env({ [PROTOCOL_VERSION_META_KEY]: "2025-06-18" }) })],
  ["2025 notification", {}, note("notifications/initialized")],
  ["notification with a modern header", { protocolVersion: V }, note("notifications/cancelled", { requestId: 1 })],
  ["notification, Mcp-Method disagrees", { protocolVersion: V, method: "notifications/progress" }, note("notifications/cancelled", { requestId: 1 })],
  ["notification with a claim", {}, note("notifications/cancelled", { requestId: 1, _meta: { [PROTOCOL_VERSION_META_KEY]: V } })],
  ["notification with a bad claim", {}, note("notifications/cancelled", { requestId: 1, _meta: { [PROTOCOL_VERSION_META_KEY]: 1 } })],
  ["posted response", {}, { jsonrpc: "2.0", id: "bridge-1", result: {} }],
  ["2025 batch", {}, [req("tools/list"), note("notifications/initialized")]],
  ["batch with a 2026 element", {}, [req("tools/list", { _meta: env() })]],
];

describe("the bridge's era classifier against the v2 SDK's", () => {
  it("names the reserved _meta keys as the SDK does", () => {
    expect(META).toMatchObject({
      protocolVersion: PROTOCOL_VERSION_META_KEY,
      clientInfo: CLIENT_INFO_META_KEY,
      clientCapabilities: CLIENT_CAPABILITIES_META_KEY,
      logLevel: LOG_LEVEL_META_KEY,
      serverInfo: SERVER_INFO_META_KEY,
    });
  });

  it.each(CASES)("%s", (_name, headers, body) => {
    const sdk = classifyInboundRequest({
      httpMethod: "POST",
      protocolVersionHeader: headers.protocolVersion,
      mcpMethodHeader: headers.method,
      mcpNameHeader: headers.name,
      body,
    });
    const ours = classify("POST", headers, body);
    const view = (o: { kind: string; httpStatus?: number; status?: number; code?: number }) =>
      o.kind === "reject" ? { kind: o.kind, status: o.httpStatus ?? o.status, code: o.code } : { kind: o.kind };
    expect(view(ours)).toEqual(view(sdk));
  });

  it("routes GET and DELETE to the 2025 sessions, as the SDK does", () => {
    for (const method of ["GET", "DELETE"]) {
      expect(classify(method, {}, undefined).kind).toBe("legacy");
      expect(classifyInboundRequest({ httpMethod: method }).kind).toBe("legacy");
    }
  });
});
