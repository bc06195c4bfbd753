// Shape tests for JSON-RPC messages that were already validated once (by the SDK's
// ReadBuffer for child output, by JSONRPCMessageSchema for HTTP bodies). The SDK's
// own isJSONRPC* guards run a zod parse each, several times per forwarded message;
// on the hot path a property check is all that is left to decide.
import type { JSONRPCErrorResponse, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js";

export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return "method" in message && "id" in message;
}

export function isNotification(message: JSONRPCMessage): message is JSONRPCNotification {
  return "method" in message && !("id" in message);
}

export function isResponse(message: JSONRPCMessage): message is JSONRPCResultResponse | JSONRPCErrorResponse {
  return !("method" in message) && ("result" in message || "error" in message);
}

export function isErrorResponse(message: JSONRPCMessage): message is JSONRPCErrorResponse {
  return !("method" in message) && "error" in message;
}
