// HTTP sessions as the proxy sees them. A Streamable HTTP POST is held as an
// Exchange: answered with plain JSON when only responses come back (the common,
// cheap case), and switched to an SSE stream the moment a message must reach the
// client before the response (progress, a sampling or elicitation request). The
// SDK's server transport picks JSON or SSE once per transport and drops progress
// in JSON mode, which is why this part is the bridge's own. Legacy SSE sessions
// use the SDK's SSEServerTransport as is.
import type { ServerResponse } from "node:http";
import type { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js"; // type only: loaded lazily
import type { ClientCapabilities, JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isResponse } from "./messages";
import type { Downstream } from "./proxy";

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" };

export function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function key(id: RequestId | undefined): string {
  return `${typeof id}:${id}`;
}

/** One POST that carried requests: open until every request in it has its response. */
export class Exchange {
  private readonly waiting = new Set<string>();
  private readonly responses: JSONRPCMessage[] = [];
  private streaming = false;
  done = false;

  constructor(
    private readonly res: ServerResponse,
    readonly ids: RequestId[],
    private readonly headers: Record<string, string>,
    private readonly batch: boolean,
  ) {
    for (const id of ids) this.waiting.add(key(id));
  }

  write(message: JSONRPCMessage): boolean {
    if (this.done || this.res.destroyed) return false;
    const answers = isResponse(message) && this.waiting.delete(key(message.id));
    if (answers && !this.streaming) this.responses.push(message);
    else {
      this.startStream();
      this.res.write(sseEvent(message));
    }
    if (this.waiting.size === 0) this.finish();
    return true;
  }

  private startStream(): void {
    if (this.streaming) return;
    this.streaming = true;
    this.res.writeHead(200, { ...SSE_HEADERS, ...this.headers });
    for (const earlier of this.responses.splice(0)) this.res.write(sseEvent(earlier));
  }

  private finish(): void {
    this.done = true;
    if (this.streaming) {
      this.res.end();
      return;
    }
    const body = JSON.stringify(this.batch ? this.responses : this.responses[0]);
    this.res.writeHead(200, { "content-type": "application/json", ...this.headers }).end(body);
  }
}

export class StreamableSession implements Downstream {
  clientCapabilities: ClientCapabilities = {};
  lastSeen = Date.now();
  private readonly exchanges = new Map<string, Exchange>();
  private standalone?: ServerResponse;
  onclose?: () => void;
  private closed = false;

  constructor(readonly id: string) {}

  inFlight(id: RequestId): boolean {
    return this.exchanges.has(key(id));
  }

  register(exchange: Exchange): void {
    for (const id of exchange.ids) this.exchanges.set(key(id), exchange);
  }

  /** Ids of requests whose HTTP exchange went away before they were answered. */
  abandon(exchange: Exchange): RequestId[] {
    const left: RequestId[] = [];
    for (const id of exchange.ids) {
      if (this.exchanges.get(key(id)) === exchange) {
        this.exchanges.delete(key(id));
        left.push(id);
      }
    }
    return left;
  }

  deliver(message: JSONRPCMessage, related?: RequestId): boolean {
    if (this.closed) return false;
    this.lastSeen = Date.now();
    if (related !== undefined) {
      const exchange = this.exchanges.get(key(related));
      if (exchange) {
        const isFinal = isResponse(message) && key(message.id) === key(related);
        if (isFinal) this.exchanges.delete(key(related));
        return exchange.write(message);
      }
      if (isResponse(message)) return false;
    }
    if (this.standalone && !this.standalone.writableEnded) {
      this.standalone.write(sseEvent(message));
      return true;
    }
    // No stream of its own: ride on any call of this session still in flight.
    for (const exchange of this.exchanges.values()) if (exchange.write(message)) return true;
    return false;
  }

  openStandalone(res: ServerResponse, headers: Record<string, string>): void {
    this.standalone?.end();
    this.standalone = res;
    res.writeHead(200, { ...SSE_HEADERS, ...headers });
    res.write(": stream open\n\n");
    res.on("close", () => {
      if (this.standalone === res) this.standalone = undefined;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.standalone?.end();
    this.onclose?.();
  }
}

/** A legacy (2024-11-05) HTTP+SSE session on the SDK's own transport. */
export class LegacySseSession implements Downstream {
  clientCapabilities: ClientCapabilities = {};
  lastSeen = Date.now();

  constructor(readonly transport: SSEServerTransport) {}

  get id(): string {
    return this.transport.sessionId;
  }

  deliver(message: JSONRPCMessage): boolean {
    this.lastSeen = Date.now();
    this.transport.send(message).catch(() => undefined);
    return true;
  }

  close(): void {
    this.transport.close().catch(() => undefined);
  }
}
