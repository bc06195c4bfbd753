// The bridge's HTTP surface on node:http (five routes; no framework between the
// socket and the hot path): /health, /metrics, and per server
// /servers/{name}/mcp (Streamable HTTP), /servers/{name}/sse and /messages
// (legacy SSE). Every error is JSON; bodies are size-limited and validated.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, type Logger } from "@edgehost/shared/logger";
import { checkOrigin, checkToken, type AccessPolicy } from "./auth";
import { tooDeep } from "@edgehost/shared/limits";
import { isRequest } from "./messages";
import type { ServerProxy } from "./proxy";
import { RPC, rpcError } from "./rpc";
import { Exchange, LegacySseSession, StreamableSession } from "./sessions";

export interface HttpContext {
  access: AccessPolicy;
  logger: Logger;
  maxBodyBytes: number;
  standaloneStream: boolean;
  proxy(name: string): ServerProxy | undefined;
  health(): { ok: boolean };
  metrics(): unknown;
  streamable: Map<string, StreamableSession>;
  legacy: Map<string, LegacySseSession>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }
}

const ROUTE = /^\/servers\/([^/]+)\/(mcp|sse|messages)$/;
const MAX_DEPTH = 100;
// Past this, an oversized body is cut off rather than read to its end.
const DRAIN_LIMIT = 64 * 1024 * 1024;

export function createRequestHandler(ctx: HttpContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(ctx, req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const code = error instanceof HttpError ? error.rpcCode : RPC.serverError;
      if (!(error instanceof HttpError)) ctx.logger.error("request failed", { path: pathOf(req), error: errorMessage(error) });
      sendJson(res, status, rpcError(null, code, error instanceof HttpError ? error.message : "internal error"));
    });
  };
}

async function handle(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
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
  const proxy = ctx.proxy(name);
  if (!proxy) throw new HttpError(404, RPC.methodNotFound, `unknown MCP server "${name}"`);
  if (match[2] === "mcp") return streamable(ctx, proxy, req, res);
  if (match[2] === "sse" && req.method === "GET") return openLegacy(ctx, proxy, name, req, res);
  if (match[2] === "messages" && req.method === "POST") return postLegacy(ctx, proxy, req, res);
  throw new HttpError(405, RPC.serverError, `${req.method} is not allowed here`);
}

async function streamable(ctx: HttpContext, proxy: ServerProxy, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const sessionHeader = req.headers["mcp-session-id"];
  const sessionId = typeof sessionHeader === "string" ? sessionHeader : undefined;
  if (req.method === "DELETE") {
    const session = sessionId ? ctx.streamable.get(sessionId) : undefined;
    if (!session) throw new HttpError(404, RPC.sessionNotFound, "session not found");
    session.close();
    res.writeHead(200).end();
    return;
  }
  if (req.method === "GET") {
    // A standalone stream keeps a Durable Object awake forever: opt-in only.
    if (!ctx.standaloneStream) {
      res.writeHead(405, { allow: "POST, DELETE", "content-type": "application/json" });
      res.end(JSON.stringify(rpcError(null, RPC.serverError, "this bridge does not offer a standalone SSE stream (start it with --sse-stream)")));
      return;
    }
    const session = sessionId ? ctx.streamable.get(sessionId) : undefined;
    if (!session) throw new HttpError(404, RPC.sessionNotFound, "session not found");
    session.openStandalone(res, { "mcp-session-id": session.id });
    return;
  }
  if (req.method !== "POST") throw new HttpError(405, RPC.serverError, `${req.method} is not allowed here`);

  const body = await readJson(req, ctx.maxBodyBytes);
  const batch = Array.isArray(body);
  const messages = parseMessages(body);
  const initialize = messages.find((m) => isRequest(m) && m.method === "initialize");
  let session: StreamableSession | undefined;
  if (initialize) {
    if (messages.length > 1) throw new HttpError(400, RPC.invalidRequest, "initialize must be sent alone");
    session = new StreamableSession(randomUUID());
    const created = session;
    ctx.streamable.set(created.id, created);
    proxy.sessions.set(created.id, created);
    created.onclose = () => {
      ctx.streamable.delete(created.id);
      proxy.detach(created);
    };
  } else {
    session = sessionId ? ctx.streamable.get(sessionId) : undefined;
    if (!session || !proxy.sessions.has(session.id)) throw new HttpError(404, RPC.sessionNotFound, "session not found: initialize again");
  }
  session.lastSeen = Date.now();
  const requestIds = messages.filter(isRequest).map((m) => m.id);
  if (requestIds.length === 0) {
    for (const message of messages) await proxy.fromSession(session, message);
    res.writeHead(202).end();
    return;
  }
  const keys = requestIds.map((id) => `${typeof id}:${id}`);
  const duplicate = requestIds.find((id, i) => keys.indexOf(keys[i] as string) !== i || session?.inFlight(id));
  if (duplicate !== undefined) throw new HttpError(400, RPC.invalidRequest, `request id ${JSON.stringify(duplicate)} is already in use in this session`);
  const exchange = new Exchange(res, requestIds, { "mcp-session-id": session.id }, batch);
  session.register(exchange);
  const owner = session;
  res.on("close", () => {
    // The client hung up before every answer came back: cancel what is left.
    if (!exchange.done) for (const id of owner.abandon(exchange)) proxy.cancel(owner, id, "client disconnected");
  });
  for (const message of messages) await proxy.fromSession(session, message);
  // initialize was answered with an error (the child could not start): no session.
  if (initialize && proxy.state !== "ready") session.close();
}

async function openLegacy(ctx: HttpContext, proxy: ServerProxy, name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Loaded on first use: most deployments never see a legacy client, and it costs memory.
  const { SSEServerTransport } = await import("@modelcontextprotocol/sdk/server/sse.js");
  const transport = new SSEServerTransport(`/servers/${encodeURIComponent(name)}/messages`, res);
  const session = new LegacySseSession(transport);
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
  if (!session || !proxy.sessions.has(id)) throw new HttpError(404, RPC.sessionNotFound, "session not found");
  const messages = parseMessages(await readJson(req, ctx.maxBodyBytes));
  res.writeHead(202).end();
  for (const message of messages) await proxy.fromSession(session, message);
}

function parseMessages(body: unknown): JSONRPCMessage[] {
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw new HttpError(400, RPC.invalidRequest, "empty batch");
  // Deeper than any real tool call: it would overflow the stack of the next JSON.stringify.
  if (tooDeep(body, MAX_DEPTH)) throw new HttpError(400, RPC.invalidRequest, `the message nests deeper than ${MAX_DEPTH} levels`);
  return items.map((item, i) => {
    const parsed = JSONRPCMessageSchema.safeParse(item);
    if (!parsed.success) {
      const where = Array.isArray(body) ? ` (batch item ${i})` : "";
      throw new HttpError(400, RPC.invalidRequest, `not a JSON-RPC 2.0 message${where}`);
    }
    return parsed.data;
  });
}

function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const type = req.headers["content-type"] ?? "";
    if (!type.toLowerCase().startsWith("application/json")) {
      reject(new HttpError(415, RPC.invalidRequest, "Content-Type must be application/json"));
      return;
    }
    // Over the limit: read the rest and drop it, then answer 413. Answering while the
    // client still writes makes Node close the socket, and the client sees EPIPE instead.
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > DRAIN_LIMIT) req.destroy();
      else if (size <= limit) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > limit) return reject(new HttpError(413, RPC.invalidRequest, `body larger than ${limit} bytes`));
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        reject(new HttpError(400, RPC.parseError, "Parse error: the body is not valid JSON"));
      }
    });
    req.on("error", reject);
  });
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
