// A child that speaks MCP 2026-07-28 itself over stdio (a v2 SDK server's `serveStdio`).
// The bridge finds out at start: it opens with a `server/discover` probe, which such a
// child answers with the revisions it supports and a 2025 child refuses (method not
// found); a 2025 child then gets the `initialize` handshake as before (child.ts). A
// native child's connection is pinned to 2026 by the requests that follow, so every
// request the bridge sends it must carry the per-request envelope: a 2026 client's
// already does and passes through unchanged (native-call.ts); a 2025 session's request
// is given one here, and its answer loses the 2026 vocabulary on the way back.
import type { ClientCapabilities, Implementation, JSONRPCMessage, JSONRPCRequest, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isRequest, isResponse } from "./messages";
import { META, MODERN_VERSION } from "./modern-protocol";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** How long a child has to answer the probe; one that says nothing is treated as a 2025 child. */
export const PROBE_MS = 2_000;
/** The internal error a 2025 session gets for a question it cannot be asked (see inbound). */
const INTERNAL_ERROR = -32603;

function envelope(capabilities: ClientCapabilities, clientInfo: Implementation): Json {
  return { [META.protocolVersion]: MODERN_VERSION, [META.clientCapabilities]: capabilities, [META.clientInfo]: clientInfo };
}

export function discoverProbe(id: RequestId, capabilities: ClientCapabilities, clientInfo: Implementation): JSONRPCRequest {
  return { jsonrpc: "2.0", id, method: "server/discover", params: { _meta: envelope(capabilities, clientInfo) } };
}

export interface NativeInfo {
  protocolVersion: string;
  capabilities: Json;
  serverInfo: Implementation;
  instructions?: string;
}

/** What a `server/discover` answer says of a child that speaks 2026-07-28; undefined when it does not. */
export function nativeInfo(answer: JSONRPCMessage, legacyVersion: string): NativeInfo | undefined {
  if (!isResponse(answer) || !("result" in answer)) return undefined;
  const result = answer.result as Json;
  if (!Array.isArray(result.supportedVersions) || !result.supportedVersions.includes(MODERN_VERSION)) return undefined;
  const meta = isObject(result._meta) ? result._meta : {};
  const serverInfo = (isObject(meta[META.serverInfo]) ? meta[META.serverInfo] : { name: "unknown", version: "0" }) as Implementation;
  return {
    // What the bridge's 2025 face offers its sessions: the child's own revision is told to 2026 clients by the child.
    protocolVersion: legacyVersion,
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    serverInfo,
    ...(typeof result.instructions === "string" ? { instructions: result.instructions } : {}),
  };
}

/** The envelope on a 2025 session's requests to a native child, and the 2026 vocabulary off their answers. */
export class NativeFace {
  /** Ids of requests given an envelope here, whose answers are translated back. */
  private readonly wrapped = new Set<RequestId>();

  constructor(
    private readonly capabilities: ClientCapabilities,
    private readonly clientInfo: Implementation,
  ) {}

  outbound(message: JSONRPCMessage): JSONRPCMessage {
    if (!isRequest(message)) return message;
    const params = isObject(message.params) ? message.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    if (META.protocolVersion in meta) return message; // a 2026 client's, with its own envelope
    this.wrapped.add(message.id);
    return { ...message, params: { ...params, _meta: { ...meta, ...envelope(this.capabilities, this.clientInfo) } } };
  }

  inbound(message: JSONRPCMessage): JSONRPCMessage {
    if (!isResponse(message) || message.id === undefined || !this.wrapped.delete(message.id) || !("result" in message)) return message;
    const { resultType, ttlMs, cacheScope, _meta, ...result } = message.result as Json;
    if (resultType === "input_required") {
      return {
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: INTERNAL_ERROR,
          message:
            "The MCP server needs input from the client (input_required), which the bridge does not put to an MCP 2025 client; connect with MCP 2026-07-28",
        },
      };
    }
    const kept = isObject(_meta) ? Object.fromEntries(Object.entries(_meta).filter(([key]) => key !== META.serverInfo)) : {};
    return { ...message, result: Object.keys(kept).length > 0 ? { ...result, _meta: kept } : result };
  }
}
