// Every JSON-RPC error code the bridge writes, in one place, and the shapes it writes
// them in: never an HTML page, never a stack trace. Shared so the Worker (src/mcp/call.ts)
// tells the bridge's errors apart by code and data without depending on the bridge.
// Free of imports: the Worker reaches MCP through the 2.x SDK, the bridge through 1.x,
// and both accept these plain JSON-RPC shapes.

type RequestId = string | number;

/** A JSON-RPC error answer, as both SDKs type it. */
export interface JSONRPCErrorResponse {
  jsonrpc: "2.0";
  id: RequestId;
  error: { code: number; message: string; data?: unknown };
}

/** Transport-level refusals (always with an HTTP error status), as the SDK's own server uses them. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  /** Refusals with no better code (401, 403, 405), as SDK servers send them. */
  serverError: -32000,
  /** HTTP 404 for an unknown Mcp-Session-Id, as SDK servers send it. */
  sessionNotFound: -32001,
  // Same code as LSP's RequestCancelled: ends an exchange the client gave up on.
  requestCancelled: -32800,
} as const;

/**
 * Answers to a forwarded request that the stdio server behind the bridge could not
 * take. Outside the JSON-RPC reserved range -32768..-32000, where the SDK's own codes
 * live (ConnectionClosed -32000, RequestTimeout -32001, UrlElicitationRequired -32042),
 * so a client never mistakes a crashed server for its own connection closing. MCP's
 * error code policy says the same: "New error codes for purposes not defined by this
 * specification SHOULD be allocated outside the JSON-RPC reserved range".
 */
export const BRIDGE_ERROR = {
  /** Not running: waiting out its restart backoff, or it could not start or be written to. */
  server_unavailable: -31001,
  /** Died (or was killed by the bridge) while handling this request; restarted on the next one. */
  server_crashed: -31002,
  /** Stopped on purpose: the bridge shuts down, or a reload removed or changed it. */
  server_stopped: -31003,
} as const;

export type BridgeErrorKind = keyof typeof BRIDGE_ERROR;

/**
 * Answers of the Worker's own MCP endpoint (/mcp, src/gateway/) that a client should tell
 * apart from a tool's failure, outside the reserved range as BRIDGE_ERROR is.
 */
export const GATEWAY_ERROR = {
  /** A call held for the person's approval in the page was not answered in time: approve it there, then call again. */
  approval_pending: -31101,
  /** An upstream server asked to sample a model and this app may not spend the person's budget. */
  sampling_not_allowed: -31103,
  /** The upstream server needs the person's OAuth sign-in in the page first. */
  sign_in_required: -31104,
} as const;

/** The `data` of a bridge error. */
export interface BridgeErrorData {
  kind: BridgeErrorKind;
  /** The server's name in mcp.json. */
  server: string;
  /** What happened, without the server's name, e.g. `crashed (killed by SIGKILL) while handling this request; …`. */
  reason: string;
  /** When the bridge will start the server again, if it is waiting. */
  retryAfterMs?: number;
}

export function rpcError(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // The SDK's type insists on an id; JSON-RPC allows null when the request's id is unknown.
  return { jsonrpc: "2.0", id: id as RequestId, error: { code, message } };
}

export function bridgeError(id: RequestId, data: BridgeErrorData, message: string): JSONRPCErrorResponse {
  return { jsonrpc: "2.0", id, error: { code: BRIDGE_ERROR[data.kind], message, data } };
}

/** The bridge error data behind a JSON-RPC error, when `code` and `data` are one. */
export function readBridgeError(code: number, data: unknown): BridgeErrorData | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const { kind, server, reason, retryAfterMs } = data as Record<string, unknown>;
  if (typeof kind !== "string" || !Object.hasOwn(BRIDGE_ERROR, kind) || BRIDGE_ERROR[kind as BridgeErrorKind] !== code) return undefined;
  if (typeof server !== "string" || typeof reason !== "string") return undefined;
  if (retryAfterMs === undefined) return { kind: kind as BridgeErrorKind, server, reason };
  if (typeof retryAfterMs !== "number" || !Number.isFinite(retryAfterMs) || retryAfterMs < 0) return undefined;
  return { kind: kind as BridgeErrorKind, server, reason, retryAfterMs };
}
