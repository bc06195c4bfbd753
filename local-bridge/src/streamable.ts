// The Streamable HTTP endpoint `/servers/{name}/mcp` (MCP 2025-11-25, basic/transports):
// POST carries messages, GET opens the standalone stream (with --sse-stream) or resumes
// a stream with Last-Event-ID, DELETE ends the session. The header checks follow the
// transport's MUSTs: Accept (406), MCP-Protocol-Version (400), Mcp-Session-Id (400
// when missing, 404 when unknown).
import { randomUUID } from "node:crypto";
import type { HttpContext } from "./http-context";
import { SUPPORTED_PROTOCOL_VERSIONS, isRequest } from "./messages";
import type { ServerProxy } from "./proxy";
import { HttpError, accepts, header, parseMessages, readJson, sendError, type BridgeRequest, type BridgeResponse } from "./request";
import { RPC } from "@edgehost/shared/rpc";
import { StreamableSession } from "./sessions";
import { requestUser } from "./user-scope";
import { sendRefusal, serveModern } from "./modern";
import { classify, trimmed, unsupportedVersion } from "./modern-protocol";

const JSON_TYPE = "application/json";
const SSE_TYPE = "text/event-stream";

export async function streamable(ctx: HttpContext, proxy: ServerProxy, req: BridgeRequest, res: BridgeResponse): Promise<void> {
  if (req.method === "POST") return post(ctx, proxy, req, res);
  if (req.method === "GET") return get(ctx, proxy, req, res);
  if (req.method === "DELETE") {
    const session = existingSession(ctx, proxy, req);
    session.close();
    res.writeHead(200).end();
    return;
  }
  throw new HttpError(405, RPC.serverError, `${req.method} is not allowed here`, { allow: "GET, POST, DELETE" });
}

/** The session a non-initialize request names, after checking its protocol version. */
function existingSession(ctx: HttpContext, proxy: ServerProxy, req: BridgeRequest): StreamableSession {
  const sessionId = header(req, "mcp-session-id");
  if (sessionId === undefined) throw new HttpError(400, RPC.invalidRequest, "Bad Request: the Mcp-Session-Id header is required (send initialize first)");
  const session = ctx.streamable.get(sessionId);
  // Another user's session is answered as if it did not exist: its id must not be usable, or probed.
  if (!session || !proxy.sessions.has(session.id) || session.user !== requestUser(req))
    throw new HttpError(404, RPC.sessionNotFound, "session not found: initialize again");
  // Absent: the version negotiated at initialize holds (the spec's fallback for old clients).
  const version = header(req, "mcp-protocol-version");
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new HttpError(
      400,
      RPC.invalidRequest,
      `Bad Request: unsupported MCP-Protocol-Version "${version}" (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  return session;
}

async function post(ctx: HttpContext, proxy: ServerProxy, req: BridgeRequest, res: BridgeResponse): Promise<void> {
  const accept = header(req, "accept");
  if (!accepts(accept, JSON_TYPE) || !accepts(accept, SSE_TYPE)) {
    throw new HttpError(406, RPC.invalidRequest, `Not Acceptable: Accept must list both ${JSON_TYPE} and ${SSE_TYPE}`);
  }
  const body = await readJson(req, ctx.maxBodyBytes);
  // Both revisions on one endpoint: a body that names 2026-07-28 in its `_meta` is served statelessly (modern.ts).
  const modernHeaders = {
    protocolVersion: trimmed(header(req, "mcp-protocol-version")),
    method: trimmed(header(req, "mcp-method")),
    name: trimmed(header(req, "mcp-name")),
  };
  const era = classify("POST", modernHeaders, body);
  if (era.kind === "reject") return sendRefusal(res, era, era.id ?? null);
  const unsupported = unsupportedVersion(era);
  if (unsupported) return sendRefusal(res, unsupported, unsupported.id);
  if (era.kind === "modern") {
    const user = requestUser(req) ?? "";
    // SEP-2243: a tool's x-mcp-header arguments must come in their Mcp-Param-* headers as well (modern-params.ts).
    if (isRequest(era.message) && era.message.method === "tools/call") {
      const wrong = await proxy.toolHeaders.check(proxy, user, era.message, (name) => trimmed(header(req, name)));
      if (wrong) return sendRefusal(res, wrong, era.message.id);
    }
    return serveModern(ctx, proxy, user, res, era.message, era.version, modernHeaders);
  }
  const batch = Array.isArray(body);
  const messages = parseMessages(body);
  const initialize = messages.find((m) => isRequest(m) && m.method === "initialize");
  let session: StreamableSession;
  if (initialize) {
    if (messages.length > 1) throw new HttpError(400, RPC.invalidRequest, "initialize must be sent alone");
    session = new StreamableSession(randomUUID(), requestUser(req) ?? "");
    const created = session;
    ctx.streamable.set(created.id, created);
    proxy.sessions.set(created.id, created);
    created.onclose = () => {
      ctx.streamable.delete(created.id);
      proxy.detach(created);
    };
  } else {
    session = existingSession(ctx, proxy, req);
  }
  session.lastSeen = Date.now();
  const requestIds = messages.filter(isRequest).map((m) => m.id);
  if (requestIds.length === 0) {
    for (const message of messages) await proxy.fromSession(session, message);
    res.writeHead(202).end();
    return;
  }
  const keys = requestIds.map((id) => `${typeof id}:${id}`);
  const duplicate = requestIds.find((id, i) => keys.indexOf(keys[i] as string) !== i || session.inFlight(id));
  if (duplicate !== undefined) throw new HttpError(400, RPC.invalidRequest, `request id ${JSON.stringify(duplicate)} is already in use in this session`);
  const exchange = session.exchange(res, requestIds, { "mcp-session-id": session.id }, batch);
  const owner = session;
  res.on("close", () => {
    // An SSE answer carries event ids: the client may resume it (GET + Last-Event-ID), so
    // its requests go on. A plain JSON answer cannot be resumed: cancel what is left.
    if (exchange.done || exchange.resumable) return;
    for (const id of owner.abandon(exchange)) proxy.cancel(owner, id, "client disconnected");
  });
  for (const message of messages) await proxy.fromSession(session, message);
  // initialize was answered with an error (the child could not start): no session.
  if (initialize && proxy.state !== "ready") session.close();
}

async function get(ctx: HttpContext, proxy: ServerProxy, req: BridgeRequest, res: BridgeResponse): Promise<void> {
  if (!accepts(header(req, "accept"), SSE_TYPE)) throw new HttpError(406, RPC.invalidRequest, `Not Acceptable: Accept must list ${SSE_TYPE}`);
  const lastEventId = header(req, "last-event-id");
  // A standalone stream keeps a Durable Object awake forever: opt-in only. Resuming a
  // POST's stream is always possible.
  if (lastEventId === undefined && !ctx.standaloneStream) {
    throw new HttpError(405, RPC.serverError, "this bridge does not offer a standalone SSE stream (start it with --sse-stream)", { allow: "POST, DELETE" });
  }
  const session = existingSession(ctx, proxy, req);
  session.lastSeen = Date.now();
  const headers = { "mcp-session-id": session.id };
  if (lastEventId === undefined) return session.openStandalone(res, headers);
  const outcome = session.resume(lastEventId, res, headers);
  if (outcome === "invalid")
    throw new HttpError(400, RPC.invalidRequest, `Bad Request: Last-Event-ID "${lastEventId.slice(0, 64)}" is not an event id of this bridge`);
  // 405, not an empty stream: an SDK client reconnects after a stream that ends with
  // no response in it, and would poll forever; 405 tells it there is no stream here.
  if (outcome === "nothing") {
    sendError(res, new HttpError(405, RPC.serverError, `nothing to resume after event ${lastEventId}: that stream has ended`, { allow: "POST, DELETE" }));
  }
}
