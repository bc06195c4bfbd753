// JSON-RPC error shapes the bridge writes itself. Every error a client sees is a
// JSON-RPC error object: never an HTML page, never a stack trace.
import type { JSONRPCErrorResponse, RequestId } from "@modelcontextprotocol/sdk/types.js";

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  serverError: -32000,
  sessionNotFound: -32001,
  // Same code as LSP's RequestCancelled: ends an exchange the client gave up on.
  requestCancelled: -32800,
} as const;

export function rpcError(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // The SDK's type insists on an id; JSON-RPC allows null when the request's id is unknown.
  return { jsonrpc: "2.0", id: id as RequestId, error: { code, message } };
}
