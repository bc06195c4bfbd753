// A child that speaks MCP 2026-07-28 itself over stdio (a v2 SDK server's `serveStdio`).
// The bridge finds out at start: it opens with a `server/discover` probe, which such a
// child answers with the revisions it supports and a 2025 child refuses (method not
// found); a 2025 child then gets the `initialize` handshake as before (child.ts). A
// native child's connection is pinned to 2026 by the requests that follow, so every
// request the bridge sends it must carry the per-request envelope: a 2026 client's
// already does and passes through unchanged (native-call.ts); a 2025 session's request
// is given one here, its answer loses the 2026 vocabulary on the way back, and the
// child's questions (`input_required`) are put to the session as a 2025 child's are.
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCRequest,
  JSONRPCResultResponse,
  RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { isNotification, isRequest, isResponse } from "./messages";
import { META, MODERN_VERSION } from "./modern-protocol";
import { LegacyListen } from "./native-listen";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** How long a child has to answer the probe; one that says nothing is treated as a 2025 child. */
export const PROBE_MS = 2_000;
/** The internal error a 2025 session's request gets when the child's question found no answer. */
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

/** Where a face writes: to the child's stdin as is, and to the proxy as if the child had sent it. */
export interface FaceIo {
  write(message: JSONRPCMessage): boolean;
  emit(message: JSONRPCMessage): void;
}

/** A 2025 session's request waiting on the answers to the child's questions (`input_required`). */
interface Held {
  request: JSONRPCRequest;
  requestState?: unknown;
  /** The question ids the proxy saw, and the `inputRequests` key each answers. */
  asked: Map<string, string>;
  answers: Json;
}

/**
 * The envelope on a 2025 session's requests to a native child, and the 2026 vocabulary off
 * their answers. The child's `input_required` becomes its questions, put to the session as
 * a 2025 child's requests would be (proxy routing, user rules and all); once all are
 * answered, the request goes to the child again with `inputResponses` and the child's
 * `requestState`, under the same id, so the session's call simply goes on.
 */
export class NativeFace {
  /** Requests given an envelope here, by id: their answers are translated back. */
  private readonly wrapped = new Map<RequestId, JSONRPCRequest>();
  private readonly held = new Map<RequestId, Held>();
  /** Question id → the held request it belongs to. */
  private readonly questions = new Map<string, RequestId>();
  private next = 1;
  /** The child's change notifications for 2025 sessions (native-listen.ts). */
  private legacy?: LegacyListen;

  constructor(
    private readonly capabilities: ClientCapabilities,
    private readonly clientInfo: Implementation,
    private readonly io: FaceIo,
  ) {}

  /** Starts the listen that carries the child's change notifications to 2025 sessions; `capabilities` are the child's. */
  listen(capabilities: Json): void {
    this.legacy = new LegacyListen(capabilities, envelope(this.capabilities, this.clientInfo), this.io);
    this.legacy.open();
  }

  /** From the bridge to the child. */
  send(message: JSONRPCMessage): boolean {
    if (isResponse(message) && message.id !== undefined && this.questions.has(String(message.id))) return this.answered(message);
    if (isNotification(message) && message.method === "notifications/cancelled") this.forget((message.params as Json | undefined)?.requestId);
    if (!isRequest(message)) return this.io.write(message);
    const params = isObject(message.params) ? message.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    if (META.protocolVersion in meta) return this.io.write(message); // a 2026 client's, with its own envelope
    if (this.legacy?.subscription(message)) return true;
    const wrapped = { ...message, params: { ...params, _meta: { ...meta, ...envelope(this.capabilities, this.clientInfo) } } };
    this.wrapped.set(message.id, wrapped);
    return this.io.write(wrapped);
  }

  /** From the child to the bridge. */
  receive(message: JSONRPCMessage): void {
    if (this.legacy?.take(message)) return;
    const request = isResponse(message) && message.id !== undefined ? this.wrapped.get(message.id) : undefined;
    if (!request || !("result" in message)) {
      if (request) this.wrapped.delete(request.id);
      return this.io.emit(message);
    }
    const { resultType, ttlMs, cacheScope, _meta, ...result } = message.result as Json;
    if (resultType === "input_required") return this.ask(request, result);
    this.wrapped.delete(request.id);
    const kept = isObject(_meta) ? Object.fromEntries(Object.entries(_meta).filter(([key]) => key !== META.serverInfo)) : {};
    this.io.emit({ ...message, result: Object.keys(kept).length > 0 ? { ...result, _meta: kept } : result });
  }

  private ask(request: JSONRPCRequest, result: Json): void {
    const inputRequests = isObject(result.inputRequests) ? Object.entries(result.inputRequests).filter(([, q]) => isObject(q)) : [];
    if (inputRequests.length === 0) return this.fail(request.id, "The MCP server answered input_required with no question in it");
    const held: Held = { request, requestState: result.requestState, asked: new Map(), answers: {} };
    this.held.set(request.id, held);
    for (const [key, question] of inputRequests as [string, Json][]) {
      const id = `native-${this.next++}`;
      held.asked.set(id, key);
      this.questions.set(id, request.id);
      this.io.emit({ jsonrpc: "2.0", id, method: String(question.method), ...(isObject(question.params) ? { params: question.params } : {}) });
    }
  }

  /** A session's answer to a question: kept, and once all are in, the request goes to the child again. */
  private answered(response: JSONRPCResultResponse | JSONRPCErrorResponse): boolean {
    const id = String(response.id);
    const held = this.held.get(this.questions.get(id) ?? "");
    this.questions.delete(id);
    const key = held?.asked.get(id);
    if (!held || key === undefined) return true;
    held.asked.delete(id);
    if (!("result" in response)) {
      this.forget(held.request.id);
      this.fail(held.request.id, `The MCP server's question could not be put to the client: ${response.error.message}`);
      return true;
    }
    held.answers[key] = response.result;
    if (held.asked.size > 0) return true;
    this.held.delete(held.request.id);
    const params = held.request.params ?? {};
    const retry = { ...params, inputResponses: held.answers, ...(held.requestState === undefined ? {} : { requestState: held.requestState }) };
    return this.io.write({ ...held.request, params: retry });
  }

  private fail(id: RequestId, message: string): void {
    this.wrapped.delete(id);
    this.io.emit({ jsonrpc: "2.0", id, error: { code: INTERNAL_ERROR, message } });
  }

  /** A cancelled request's questions are dropped (their late answers go nowhere). */
  private forget(id: unknown): void {
    const held = this.held.get(id as RequestId);
    if (!held) return;
    this.held.delete(held.request.id);
    for (const question of held.asked.keys()) this.questions.delete(question);
  }
}
