// Reading and answering HTTP requests: the JSON body (size-limited, validated), the
// Accept header, and JSON-RPC error answers. Every error a client sees is a JSON-RPC
// error object with the HTTP status that says what went wrong.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { tooDeep } from "@edgehost/shared/limits";
import { parseMessage } from "./messages";
import { RPC, rpcError } from "@edgehost/shared/rpc";

/**
 * What the routes read of a request and write of its answer: a Node request and response
 * (http.ts), or the relay's stand-ins for them (relay-exchange.ts), which skip HTTP.
 */
export interface BridgeRequest {
  readonly method?: string;
  readonly url?: string;
  readonly headers: IncomingHttpHeaders;
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  destroy(): unknown;
}
export interface BridgeResponse {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  writeHead(status: number, headers?: OutgoingHttpHeaders): BridgeResponse;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  on(event: "close" | "finish", listener: () => void): unknown;
  once(event: "close" | "finish", listener: () => void): unknown;
  destroy(): unknown;
}
export type RequestHandler = (req: BridgeRequest, res: BridgeResponse) => void;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const MAX_DEPTH = 100;
// Past this, an oversized body is cut off rather than read to its end.
const DRAIN_LIMIT = 64 * 1024 * 1024;

/** A header's value, or undefined when absent (a repeated header counts as absent: it is ambiguous). */
export function header(req: BridgeRequest, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
}

/** Whether an Accept header admits `type`: listed, or by `major/*` or `*\/*`, unless with q=0. */
export function accepts(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  const major = type.slice(0, type.indexOf("/"));
  return accept.split(",").some((part) => {
    const [range = "", ...params] = part.toLowerCase().split(";");
    if (params.some((p) => /^\s*q\s*=\s*0(\.0{0,3})?\s*$/.test(p))) return false;
    const r = range.trim();
    return r === type || r === `${major}/*` || r === "*/*";
  });
}

export function parseMessages(body: unknown): JSONRPCMessage[] {
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw new HttpError(400, RPC.invalidRequest, "empty batch");
  // Deeper than any real tool call: it would overflow the stack of the next JSON.stringify.
  if (tooDeep(body, MAX_DEPTH)) throw new HttpError(400, RPC.invalidRequest, `the message nests deeper than ${MAX_DEPTH} levels`);
  return items.map((item, i) => {
    const message = parseMessage(item);
    if (!message) {
      const where = Array.isArray(body) ? ` (batch item ${i})` : "";
      throw new HttpError(400, RPC.invalidRequest, `not a JSON-RPC 2.0 message${where}`);
    }
    return message;
  });
}

export function readJson(req: BridgeRequest, limit: number): Promise<unknown> {
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

export function pathOf(req: BridgeRequest): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

export function sendJson(res: BridgeResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(body));
}

export function sendError(res: BridgeResponse, error: HttpError): void {
  sendJson(res, error.status, rpcError(null, error.rpcCode, error.message), error.headers);
}
