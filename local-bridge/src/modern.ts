// A 2026-07-28 POST on `/servers/{name}/mcp` (streamable.ts routes it here by era): no
// session, everything the server needs in the request. The child behind is a 2025 stdio
// server with one initialized session, shared as for 2025 clients: `server/discover` is
// answered from what it said at initialize, a call is forwarded with the envelope taken
// off its `_meta`, and the answer is written as the revision wants it (modern-call.ts).
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "@edgehost/shared/logger";
import type { HttpContext } from "./http-context";
import { ModernCall, ModernReply, modernResult } from "./modern-call";
import { honoured, ListenStream } from "./modern-listen";
import { ALL_VERSIONS, checkStandardHeaders, META, MODERN_ERROR, MODERN_METHODS, MODERN_VERSION, type ModernHeaders, type Refusal } from "./modern-protocol";
import { verifyState, type StateBinding } from "./modern-state";
import {
  createTaskResult,
  declaresTasks,
  detailedTask,
  discoverCapabilities,
  planToolCall,
  serveTask,
  TASK_METHODS,
  TASK_TTL_MS,
  TASKS_EXTENSION,
  watchedTasks,
} from "./modern-tasks";
import { serveNative } from "./native-call";
import type { ServerProxy } from "./proxy";
import type { BridgeResponse } from "./request";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The envelope's keys: the child speaks 2025 and is told none of them. */
const ENVELOPE_KEYS = new Set<string>([META.protocolVersion, META.clientInfo, META.clientCapabilities, META.logLevel]);

export function sendRefusal(res: BridgeResponse, refusal: Refusal, id: unknown = null): void {
  const error = { code: refusal.code, message: refusal.message, ...(refusal.data === undefined ? {} : { data: refusal.data }) };
  res.writeHead(refusal.status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, error }));
}

/** A JSON-RPC error that is the request's answer (HTTP 200), not a refusal of the HTTP request. */
function inBand(res: BridgeResponse, id: unknown, code: number, message: string, data?: unknown): void {
  sendRefusal(res, { status: 200, code, message, data }, id);
}

export async function serveModern(
  ctx: HttpContext,
  proxy: ServerProxy,
  user: string,
  res: BridgeResponse,
  message: JSONRPCRequest | { method: string; params?: Json },
  version: string,
  headers: ModernHeaders,
): Promise<void> {
  if (version !== MODERN_VERSION)
    return sendRefusal(res, {
      status: 400,
      code: MODERN_ERROR.unsupportedProtocolVersion,
      message: `Unsupported protocol version: ${version}`,
      data: { supported: [...ALL_VERSIONS], requested: version },
    });
  // A notification has nothing to answer and, without a session, nothing it could change.
  if (!("id" in message)) {
    res.writeHead(202).end();
    return;
  }
  const request = message as JSONRPCRequest;
  const wrong = checkStandardHeaders(headers, request, version);
  if (wrong) return sendRefusal(res, wrong, request.id);
  // A child that speaks 2026 itself gets the request as it came (native-call.ts); one that cannot start is reported below.
  // A listen is the bridge's own, fed by the one the face keeps open at the child (native-listen.ts).
  const child = await proxy.ensureChild().catch(() => undefined);
  if (child?.info?.native && request.method !== "subscriptions/listen") {
    proxy.lastUsed = Date.now();
    const meta = (request.params as Json | undefined)?._meta as Json;
    return serveNative(proxy, user, res, request, (meta[META.clientCapabilities] ?? {}) as Json);
  }
  if (!MODERN_METHODS.has(request.method))
    return sendRefusal(res, { status: 404, code: MODERN_ERROR.methodNotFound, message: `Method not found: ${request.method}` }, request.id);
  proxy.lastUsed = Date.now();
  if (request.method === "server/discover") return discover(proxy, res, request);
  if (request.method === "subscriptions/listen") return listen(proxy, user, res, request);
  const params = (request.params ?? {}) as Json;
  const meta = params._meta as Json;
  const binding: StateBinding = { user, server: proxy.name, method: request.method, params };
  const reply = new ModernReply(res, request.id);
  const state = params.requestState;
  if (state !== undefined) {
    const claim = typeof state === "string" ? verifyState(state, binding) : undefined;
    const held = claim ? proxy.sessions.get(claim.call) : undefined;
    // The MAC already binds the user; the held call's own user is checked as well, at no cost.
    if (!claim || !(held instanceof ModernCall) || held.user !== user || !held.resume(claim, params.inputResponses, reply)) {
      ctx.logger.info("requestState refused", { server: proxy.name, method: request.method });
      return inBand(res, request.id, MODERN_ERROR.invalidParams, "Invalid or expired requestState", { reason: "invalid_request_state" });
    }
    return;
  }
  const capabilities = (meta[META.clientCapabilities] ?? {}) as Json;
  if (TASK_METHODS.has(request.method)) return serveTask(proxy, user, res, request, capabilities);
  const plan = request.method === "tools/call" ? await planToolCall(proxy, user, params.name, capabilities) : { task: false as const };
  if ("refusal" in plan) return inBand(res, request.id, plan.refusal.code, plan.refusal.message, plan.refusal.data);
  const call = new ModernCall(user, capabilities, request.id, request.method, binding, () => proxy.child?.info?.serverInfo, {
    answer: (response) => {
      proxy.fromSession(call, response).catch((error: unknown) => ctx.logger.warn("answer to the server failed", { error: errorMessage(error) }));
    },
    // Its call already finished at the child: nothing left to cancel, so not detach (a walk over every call in flight).
    done: () => proxy.sessions.delete(call.id),
    turn: (go) => proxy.gate.enter(call, go),
    blocked: () => proxy.gate.wake(),
    expired: () => {
      proxy.cancel(call, call.requestId, "the client did not answer");
      proxy.detach(call);
    },
  });
  const logLevel = meta[META.logLevel];
  if (typeof logLevel === "string") call.logLevel = logLevel; // checked against the levels by envelopeIssue
  // A task-capable tool for a client with the Tasks extension: the child runs it as a task (modern-tasks.ts).
  if (plan.task) call.shape = (result) => createTaskResult(result, plan.instance, { user, server: proxy.name });
  const sent = plan.task ? { ...childParams(params), task: { ttl: TASK_TTL_MS } } : childParams(params);
  proxy.sessions.set(call.id, call);
  call.attach(reply);
  await proxy.fromSession(call, { ...request, params: sent });
}

/** The params as a 2025 child takes them: the envelope off `_meta` (progressToken and the rest stay), no `task` (the revision has none: ignored). */
function childParams(params: Json): Json {
  const { _meta, inputResponses, requestState, task, ...rest } = params;
  if (!isObject(_meta)) return rest;
  const kept: Json = {};
  for (const [key, value] of Object.entries(_meta)) if (!ENVELOPE_KEYS.has(key)) kept[key] = value;
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
}

async function discover(proxy: ServerProxy, res: BridgeResponse, request: JSONRPCRequest): Promise<void> {
  let info: NonNullable<NonNullable<ServerProxy["child"]>["info"]> | undefined;
  try {
    info = (await proxy.ensureChild()).info;
  } catch (error) {
    return inBand(res, request.id, MODERN_ERROR.internalError, `MCP server "${proxy.name}" is unavailable: ${errorMessage(error)}`);
  }
  const result = modernResult(
    "server/discover",
    {
      supportedVersions: [...ALL_VERSIONS],
      capabilities: discoverCapabilities((info?.capabilities ?? {}) as Json),
      ...(info?.instructions ? { instructions: info.instructions } : {}),
    },
    info?.serverInfo,
    { ttlMs: 0, cacheScope: "private" },
  );
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: request.id, result }));
}

/** Opens a subscription stream: the ack with what the child can honour, then its change notifications as they come. */
async function listen(proxy: ServerProxy, user: string, res: BridgeResponse, request: JSONRPCRequest): Promise<void> {
  let capabilities: Json;
  try {
    capabilities = ((await proxy.ensureChild()).info?.capabilities ?? {}) as Json;
  } catch (error) {
    return inBand(res, request.id, MODERN_ERROR.internalError, `MCP server "${proxy.name}" is unavailable: ${errorMessage(error)}`);
  }
  const params = (request.params ?? {}) as Json;
  const filter = honoured(params.notifications, capabilities);
  const meta = isObject(params._meta) ? params._meta : {};
  const clientCapabilities = isObject(meta[META.clientCapabilities]) ? (meta[META.clientCapabilities] as Json) : {};
  const asksTasks = isObject(params.notifications) && Array.isArray(params.notifications.taskIds) && params.notifications.taskIds.length > 0;
  if (asksTasks && !declaresTasks(clientCapabilities))
    return sendRefusal(
      res,
      {
        status: 400,
        code: MODERN_ERROR.missingClientCapability,
        message: `taskIds needs the ${TASKS_EXTENSION} extension in the request's client capabilities`,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      },
      request.id,
    );
  const watched = watchedTasks(proxy, user, params.notifications);
  if (watched.size > 0) filter.taskIds = [...watched.values()];
  const view = (childTask: Json, clientTaskId: string) => detailedTask(proxy, user, String(childTask.taskId), clientTaskId, childTask, clientCapabilities);
  const stream: ListenStream = new ListenStream(user, request.id, filter, res, () => proxy.detach(stream), { watched, view });
  proxy.sessions.set(stream.id, stream);
  let n = 0;
  for (const uri of filter.resourceSubscriptions ?? []) {
    await proxy.fromSession(stream, { jsonrpc: "2.0", id: `${stream.id}-${n++}`, method: "resources/subscribe", params: { uri } });
  }
}
