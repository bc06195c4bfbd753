// The bridge's HTTP surface on node:http (five routes; no framework between the
// socket and the hot path): /health, /metrics, and per server
// /servers/{name}/mcp (Streamable HTTP, streamable.ts), /servers/{name}/sse and /messages
// (legacy SSE). Every error is JSON; bodies are size-limited and validated.
import { IncomingMessage, ServerResponse } from "node:http";
import { errorMessage } from "@edgehost/shared/logger";
import { checkOrigin, checkToken } from "./auth";
import type { HttpContext } from "./http-context";
import type { ServerProxy } from "./proxy";
import { HttpError, parseMessages, pathOf, readJson, sendError, sendJson, type BridgeRequest, type BridgeResponse, type RequestHandler } from "./request";
import { RPC } from "@edgehost/shared/rpc";
import { LegacySseSession } from "./sessions";
import { streamable } from "./streamable";
import { requestUser, USER_HEADER } from "./user-scope";

const ROUTE = /^\/servers\/([^/]+)\/(mcp|sse|messages)$/;

export function createRequestHandler(ctx: HttpContext): RequestHandler {
  return (req, res) => {
    handle(ctx, req, res).catch((error: unknown) => {
      if (error instanceof HttpError) return sendError(res, error);
      ctx.logger.error("request failed", { path: pathOf(req), error: errorMessage(error) });
      sendError(res, new HttpError(500, RPC.serverError, "internal error"));
    });
  };
}

async function handle(ctx: HttpContext, req: BridgeRequest, res: BridgeResponse): Promise<void> {
  const path = pathOf(req);
  const foreign = checkOrigin(req, ctx.access);
  if (foreign) throw new HttpError(foreign.status, RPC.serverError, foreign.message);
  // An open /health says only whether all is well: pids and stderr lines are for token holders.
  if (path === "/health" && req.method === "GET" && req.headers.authorization === undefined) return sendJson(res, 200, { ok: ctx.health().ok });
  const denied = checkToken(req, ctx.access);
  if (denied) throw new HttpError(denied.status, RPC.serverError, denied.message);
  if (path === "/health" && req.method === "GET") return sendJson(res, 200, ctx.health());
  if (path === "/metrics" && req.method === "GET") return sendJson(res, 200, ctx.metrics());
  const match = ROUTE.exec(path);
  if (!match) throw new HttpError(404, RPC.methodNotFound, `no route ${req.method} ${path}`);
  let name: string;
  try {
    name = decodeURIComponent(match[1] ?? "");
  } catch {
    throw new HttpError(404, RPC.methodNotFound, "unknown MCP server (the name is not valid URL encoding)");
  }
  const user = requestUser(req);
  if (user === undefined) throw new HttpError(400, RPC.invalidRequest, `the ${USER_HEADER} header is not a user id`);
  const proxy = ctx.proxy(name, user);
  if (!proxy) throw new HttpError(404, RPC.methodNotFound, `unknown MCP server "${name}"`);
  const trace = traceOf(req.headers.traceparent);
  if (trace) {
    proxy.trace = trace;
    ctx.logger.debug("request", { server: name, method: req.method, trace });
  }
  if (match[2] === "mcp") return streamable(ctx, proxy, req, res);
  // The legacy transport needs a real connection (the SDK writes to it); the relay carries only /mcp.
  if (!(req instanceof IncomingMessage && res instanceof ServerResponse)) throw new HttpError(404, RPC.methodNotFound, `no route ${req.method} ${path}`);
  if (match[2] === "sse" && req.method === "GET") return openLegacy(ctx, proxy, name, req, res);
  if (match[2] === "messages" && req.method === "POST") return postLegacy(ctx, proxy, req, res);
  throw new HttpError(405, RPC.serverError, `${req.method} is not allowed here`);
}

async function openLegacy(ctx: HttpContext, proxy: ServerProxy, name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Loaded on first use: most deployments never see a legacy client, and it costs memory.
  const { SSEServerTransport } = await import("@modelcontextprotocol/sdk/server/sse.js");
  const transport = new SSEServerTransport(`/servers/${encodeURIComponent(name)}/messages`, res);
  const session = new LegacySseSession(transport, requestUser(req) ?? "");
  transport.onmessage = (message) => {
    proxy.fromSession(session, message).catch((error: unknown) => ctx.logger.warn("legacy message failed", { error: errorMessage(error) }));
  };
  transport.onclose = () => {
    ctx.legacy.delete(session.id);
    proxy.detach(session);
  };
  await transport.start();
  ctx.legacy.set(session.id, session);
  proxy.sessions.set(session.id, session);
  req.on("close", () => session.close());
}

async function postLegacy(ctx: HttpContext, proxy: ServerProxy, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = new URL(req.url ?? "/", "http://bridge").searchParams.get("sessionId") ?? "";
  const session = ctx.legacy.get(id);
  if (!session || !proxy.sessions.has(id) || session.user !== requestUser(req)) throw new HttpError(404, RPC.sessionNotFound, "session not found");
  const messages = parseMessages(await readJson(req, ctx.maxBodyBytes));
  res.writeHead(202).end();
  for (const message of messages) await proxy.fromSession(session, message);
}

/** The trace id of a W3C `traceparent` (version 00), or undefined for none or a malformed one. */
function traceOf(header: string | string[] | undefined): string | undefined {
  const match = typeof header === "string" ? /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(header) : null;
  return match?.[1];
}
