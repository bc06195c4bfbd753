// MCP 2026-07-28 (the stateless revision) as the bridge's HTTP endpoint needs it: which
// era a POST belongs to, and the header and envelope checks the revision names, with the
// codes and HTTP statuses it gives them. The rules are the v2 SDK's own
// (`classifyInboundRequest` and `validateStandardRequestHeaders` of
// @modelcontextprotocol/server 2.4): tests/bridge/bridge.modern-protocol.test.ts runs both
// over the same requests. Not imported from there because the package loads its zod
// schemas with it (about 26 MB), which the idle bridge must not carry (bridge.memory.test.ts).
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isNotification, isRequest, isResponse, parseMessage, SUPPORTED_PROTOCOL_VERSIONS } from "./messages";

export const MODERN_VERSION = "2026-07-28";
/** What `server/discover` and an unsupported-version error name: the revision this endpoint speaks natively, then the 2025 ones. */
export const ALL_VERSIONS: readonly string[] = [MODERN_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** The revision's error codes (schema.ts of 2026-07-28) beside JSON-RPC's. */
export const MODERN_ERROR = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/** The requests the revision defines (its method registry); anything else is method-not-found. */
export const MODERN_METHODS: ReadonlySet<string> = new Set([
  "tools/call",
  "tools/list",
  "prompts/get",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
  "server/discover",
  "subscriptions/listen",
  // The Tasks extension's (modern-tasks.ts): answered whether or not the child runs tasks.
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
]);

/** Methods whose `Mcp-Name` header mirrors a body field. */
const NAME_SOURCE: Record<string, "name" | "uri" | "taskId"> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // SEP-2663: the Tasks extension's methods name their task.
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const LOG_LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

export interface ModernHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
}

/** A refusal the revision names: the HTTP status and the JSON-RPC error to answer with. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
  data?: unknown;
}

/** A refusal of one request carries its id: the revision wants every error answered to the request it refuses. */
export type Era =
  | { kind: "legacy" }
  | { kind: "modern"; message: JSONRPCRequest | JSONRPCNotification; version: string }
  | ({ kind: "reject"; id?: RequestId } & Refusal);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const isModern = (version: string): boolean => version >= MODERN_VERSION;

function metaOf(params: unknown): Json | undefined {
  return isObject(params) && isObject(params._meta) ? params._meta : undefined;
}

function mismatch(detail: string, header: string): Refusal {
  return {
    status: 400,
    code: MODERN_ERROR.headerMismatch,
    message: `Bad Request: the request headers and body disagree: ${detail}`,
    data: { mismatch: { header, body: detail } },
  };
}

function invalidEnvelope(key: string, problem: string): Refusal {
  return {
    status: 400,
    code: MODERN_ERROR.invalidParams,
    message: `Invalid _meta envelope for protocol revision ${MODERN_VERSION}: ${key}: ${problem}`,
    data: { envelope: { key, problem } },
  };
}

/** The first problem of a request's envelope, as the revision's schema sees it. */
export function envelopeIssue(meta: Json): { key: string; problem: string } | undefined {
  if (!(META.protocolVersion in meta)) return { key: META.protocolVersion, problem: "missing" };
  if (!(META.clientCapabilities in meta)) return { key: META.clientCapabilities, problem: "missing" };
  if (typeof meta[META.protocolVersion] !== "string") return { key: META.protocolVersion, problem: "expected string" };
  if (!isObject(meta[META.clientCapabilities])) return { key: META.clientCapabilities, problem: "expected object" };
  const info = meta[META.clientInfo];
  if (info !== undefined && !(isObject(info) && typeof info.name === "string" && typeof info.version === "string"))
    return { key: META.clientInfo, problem: "expected an Implementation (name and version)" };
  const level = meta[META.logLevel];
  if (level !== undefined && !(typeof level === "string" && LOG_LEVELS.has(level))) return { key: META.logLevel, problem: "expected a logging level" };
  return undefined;
}

/**
 * Which era a POST body belongs to. Body first: a request is 2026 when its `_meta` names
 * a protocol version; the `MCP-Protocol-Version` header only cross-checks (and decides for
 * notifications, which carry no envelope). GET and DELETE are 2025 session operations.
 */
export function classify(httpMethod: string, headers: ModernHeaders, body: unknown): Era {
  if (httpMethod !== "POST") return { kind: "legacy" };
  if (Array.isArray(body)) {
    for (const item of body) {
      if (isObject(item) && isObject(item.params) && metaOf(item.params)?.[META.protocolVersion] !== undefined)
        return {
          kind: "reject",
          status: 400,
          code: MODERN_ERROR.invalidRequest,
          message: `Bad Request: JSON-RPC batches may not contain requests for protocol revision ${MODERN_VERSION} or later`,
        };
    }
    return { kind: "legacy" };
  }
  const message: JSONRPCMessage | undefined = parseMessage(body);
  // Not JSON-RPC (here or in a batch): the 2025 path refuses it, with the same status and code the revision gives it.
  if (!message || isResponse(message)) return { kind: "legacy" };
  const header = headers.protocolVersion;
  const headerModern = header !== undefined && isModern(header);
  const meta = metaOf(message.params);
  const claim = meta !== undefined && META.protocolVersion in meta;
  if (isRequest(message)) {
    const id = message.id;
    const claimed = meta?.[META.protocolVersion];
    if (message.method === "initialize" && !(claim && typeof claimed === "string" && isModern(claimed) && meta && !envelopeIssue(meta))) {
      if (headerModern)
        return { kind: "reject", id, ...mismatch("an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header", header) };
      return { kind: "legacy" };
    }
    if (claim && meta) {
      const issue = envelopeIssue(meta);
      if (issue) return { kind: "reject", id, ...invalidEnvelope(issue.key, issue.problem) };
      const version = claimed as string;
      if (header !== undefined && header !== version)
        return {
          kind: "reject",
          id,
          ...mismatch(`the body envelope names protocol version ${version} but the MCP-Protocol-Version header names ${header}`, header),
        };
      if (headers.method !== undefined && headers.method !== message.method)
        return { kind: "reject", id, ...mismatch(`the body names method ${message.method} but the Mcp-Method header names ${headers.method}`, headers.method) };
      return { kind: "modern", message, version };
    }
    if (headerModern) {
      const missing = meta === undefined ? ["_meta"] : [META.protocolVersion, META.clientCapabilities].filter((k) => !(k in meta));
      return {
        kind: "reject",
        id,
        status: 400,
        code: MODERN_ERROR.invalidParams,
        message: `Invalid params: the MCP-Protocol-Version header names protocol revision ${header}, but the request is missing the required per-request envelope key(s): ${missing.join(", ")}`,
        data: { envelope: { missing } },
      };
    }
    return { kind: "legacy" };
  }
  if (!isNotification(message)) return { kind: "legacy" };
  if (claim) {
    const version = meta?.[META.protocolVersion];
    if (typeof version !== "string") return { kind: "reject", ...invalidEnvelope(META.protocolVersion, "expected a protocol version string") };
    if (header !== undefined && header !== version)
      return {
        kind: "reject",
        ...mismatch(`the notification envelope names protocol version ${version} but the MCP-Protocol-Version header names ${header}`, header),
      };
    if (isModern(version) && headers.method !== undefined && headers.method !== message.method)
      return {
        kind: "reject",
        ...mismatch(`the notification body names method ${message.method} but the Mcp-Method header names ${headers.method}`, headers.method),
      };
    return { kind: "modern", message, version };
  }
  if (!headerModern) return { kind: "legacy" };
  if (headers.method !== undefined && headers.method !== message.method)
    return {
      kind: "reject",
      ...mismatch(`the notification body names method ${message.method} but the Mcp-Method header names ${headers.method}`, headers.method),
    };
  return { kind: "modern", message, version: header };
}

/**
 * A request for a revision this endpoint does not speak, refused with the versions it does
 * (`server/discover` lists them) and the request's id. Apart from `classify`, which sorts by
 * era as the SDK's classifier does (it calls any envelope modern, whatever the version).
 */
export function unsupportedVersion(era: Era): ({ id: RequestId } & Refusal) | undefined {
  if (era.kind !== "modern" || era.version === MODERN_VERSION || !isRequest(era.message)) return undefined;
  return {
    id: era.message.id,
    status: 400,
    code: MODERN_ERROR.unsupportedProtocolVersion,
    message: `Unsupported protocol version: ${era.version}`,
    data: { supported: [...ALL_VERSIONS], requested: era.version },
  };
}

/**
 * The `_meta` key by which a 2025 child names a question it asks (elicitation, sampling,
 * roots) while serving a 2026 request: the name becomes the question's key in the
 * `input_required` result's `inputRequests`, where a 2026 server would have chosen one.
 * Without it (every 2025 server today) the key is the bridge's id for the question.
 */
export const INPUT_KEY = "edgehost.bridge/inputKey";

/** A child's question as `inputRequests` lists it, under the key it named if that is free (`taken`), else under `id`. */
export function questionKey(question: JSONRPCRequest, taken: (key: string) => boolean): { key: string; entry: Json } {
  const params = isObject(question.params) ? question.params : undefined;
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  const named = meta?.[INPUT_KEY];
  const key =
    typeof named === "string" && named.length > 0 && named.length <= 128 && !named.startsWith("bridge-") && !taken(named) ? named : String(question.id);
  if (!params) return { key, entry: { method: question.method } };
  if (named === undefined) return { key, entry: { method: question.method, params } };
  const { [INPUT_KEY]: _, ...rest } = meta ?? {};
  const { _meta, ...plain } = params;
  return { key, entry: { method: question.method, params: Object.keys(rest).length > 0 ? { ...plain, _meta: rest } : plain } };
}

/** An `Mcp-Name` or `Mcp-Param-*` value: plain, or `=?base64?…?=` for what a header cannot carry; undefined when the sentinel is broken. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith("=?base64?") && value.endsWith("?="))) return value;
  const text = value.slice("=?base64?".length, -2);
  // Canonical base64 with its padding (RFC 4648 §4), as the revision's examples write it.
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64");
  const decoded = bytes.toString("utf8");
  // Not UTF-8: decoding replaced something, so it does not encode back to the same bytes.
  return Buffer.from(decoded, "utf8").equals(bytes) ? decoded : undefined;
}

/** The standard headers a 2026 request must carry and agree with (MCP-Protocol-Version, Mcp-Method, Mcp-Name). */
export function checkStandardHeaders(headers: ModernHeaders, request: JSONRPCRequest, version: string): Refusal | undefined {
  if (headers.protocolVersion === undefined)
    return mismatch(`the body envelope names protocol version ${version} but the required MCP-Protocol-Version header is absent`, "(missing)");
  if (headers.method === undefined) return mismatch(`the body names method ${request.method} but the required Mcp-Method header is absent`, "(missing)");
  const field = Object.hasOwn(NAME_SOURCE, request.method) ? NAME_SOURCE[request.method] : undefined;
  if (field === undefined) return undefined;
  const value = (request.params as Json | undefined)?.[field];
  const body = typeof value === "string" ? value : undefined;
  if (headers.name === undefined)
    return body === undefined ? undefined : mismatch(`the body carries params.${field}="${body}" but the required Mcp-Name header is absent`, "(missing)");
  const decoded = decodeHeaderValue(headers.name);
  if (decoded === undefined) return mismatch("the Mcp-Name header carries an invalid Base64 sentinel value", headers.name);
  if (body !== undefined && decoded !== body)
    return mismatch(`the body carries params.${field}="${body}" but the Mcp-Name header names "${decoded}"`, headers.name);
  return undefined;
}

/** An HTTP header's value without the optional whitespace around it (RFC 9110 §5.5). */
export function trimmed(value: string | undefined): string | undefined {
  return value === undefined ? undefined : value.replace(/^[ \t]+|[ \t]+$/g, "");
}
