// JSON-RPC messages without zod: the bridge never loads the SDK's types module (its
// zod schemas cost about 15 MB of the idle bridge's memory). parseMessage checks
// exactly what the SDK's JSONRPCMessageSchema does (tests/bridge/bridge.messages.test.ts
// compares the two), once per message that enters the bridge (an HTTP body, a line of
// child output); after that a property check is all that is left to decide.
import type { JSONRPCErrorResponse, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js";

/** As in SDK 1.32.2 (types.js); the test above fails when an SDK upgrade changes them. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const isId = (value: unknown): boolean => typeof value === "string" || Number.isSafeInteger(value);
const only = (value: Json, keys: readonly string[]): boolean => Object.keys(value).every((k) => keys.includes(k));

/** `_meta`, when present, is an object whose progressToken (if any) is an id and whose related task names a taskId. */
function metaOk(holder: Json): boolean {
  const meta = holder._meta;
  if (meta === undefined) return true;
  if (!isObject(meta) || (meta.progressToken !== undefined && !isId(meta.progressToken))) return false;
  const task = meta["io.modelcontextprotocol/related-task"];
  return task === undefined || (isObject(task) && typeof task.taskId === "string");
}

/** The message, if `value` is one JSON-RPC 2.0 request, notification, result or error. */
export function parseMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== "2.0") return undefined;
  if ("method" in value) {
    if (typeof value.method !== "string") return undefined;
    if (value.params !== undefined && (!isObject(value.params) || !metaOk(value.params))) return undefined;
    const shape = "id" in value ? isId(value.id) && only(value, ["jsonrpc", "id", "method", "params"]) : only(value, ["jsonrpc", "method", "params"]);
    return shape ? (value as unknown as JSONRPCMessage) : undefined;
  }
  if ("result" in value) {
    const ok = isId(value.id) && isObject(value.result) && metaOk(value.result) && only(value, ["jsonrpc", "id", "result"]);
    return ok ? (value as unknown as JSONRPCMessage) : undefined;
  }
  if ("error" in value) {
    const error = value.error;
    const ok =
      (value.id === undefined || isId(value.id)) &&
      isObject(error) &&
      Number.isSafeInteger(error.code) &&
      typeof error.message === "string" &&
      only(value, ["jsonrpc", "id", "error"]);
    return ok ? (value as unknown as JSONRPCMessage) : undefined;
  }
  return undefined;
}

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
