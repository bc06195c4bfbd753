// HTTP sessions as the proxy sees them. A Streamable HTTP POST is held as an
// Exchange: answered with plain JSON when only responses come back (the common,
// cheap case), and switched to an SSE stream the moment a message must reach the
// client before the response (progress, a sampling or elicitation request). The
// SDK's server transport picks JSON or SSE once per transport and drops progress
// in JSON mode, which is why this part is the bridge's own. SSE streams carry event
// ids and can be resumed after a dropped connection (sse.ts). Legacy SSE sessions
// use the SDK's SSEServerTransport as is.
import type { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js"; // type only: loaded lazily
import type { ClientCapabilities, JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isResponse } from "./messages";
import type { BridgeResponse } from "./request";
import type { Downstream } from "./proxy";
import { PRIMING_SINCE, RETRY_MS, SessionEvents, SseStream, parseEventId } from "./sse";

function key(id: RequestId | undefined): string {
  return `${typeof id}:${id}`;
}

/** One POST that carried requests: open until every request in it has its response. */
export class Exchange {
  private readonly waiting = new Set<string>();
  private readonly responses: JSONRPCMessage[] = [];
  private stream?: SseStream;
  done = false;

  constructor(
    private readonly res: BridgeResponse,
    readonly ids: RequestId[],
    private readonly headers: Record<string, string>,
    private readonly batch: boolean,
    private readonly openStream: () => SseStream,
  ) {
    for (const id of ids) this.waiting.add(key(id));
  }

  /** Answered as SSE: the client holds event ids and may resume it after losing the connection. */
  get resumable(): boolean {
    return this.stream !== undefined;
  }

  /** A connection is there to carry a message now. */
  get connected(): boolean {
    return !this.done && (this.stream ? this.stream.connected : !this.res.destroyed);
  }

  write(message: JSONRPCMessage): boolean {
    if (this.done || (!this.stream && this.res.destroyed)) return false;
    const answers = isResponse(message) && this.waiting.delete(key(message.id));
    if (answers && !this.stream) this.responses.push(message);
    else this.sse().send(message);
    if (this.waiting.size === 0) this.finish();
    return true;
  }

  private sse(): SseStream {
    if (this.stream) return this.stream;
    const stream = this.openStream();
    this.stream = stream;
    stream.attach(this.res, this.headers);
    for (const earlier of this.responses.splice(0)) stream.send(earlier);
    return stream;
  }

  private finish(): void {
    this.done = true;
    if (this.stream) return this.stream.end();
    const body = JSON.stringify(this.batch ? this.responses : this.responses[0]);
    this.res.writeHead(200, { "content-type": "application/json", ...this.headers }).end(body);
  }
}

export type ResumeOutcome = "resumed" | "invalid" | "nothing";

export class StreamableSession implements Downstream {
  clientCapabilities: ClientCapabilities = {};
  protocolVersion?: string;
  lastSeen = Date.now();
  onclose?: () => void;
  private readonly exchanges = new Map<string, Exchange>();
  private readonly events = new SessionEvents();
  /** Streams that can still be resumed: open ones, and ended ones whose tail did not reach the client. */
  private readonly streams = new Map<number, SseStream>();
  private standalone?: SseStream;
  private closed = false;

  constructor(
    readonly id: string,
    readonly user = "",
  ) {}

  /** Holds a POST's requests until their responses came back. */
  exchange(res: BridgeResponse, ids: RequestId[], headers: Record<string, string>, batch: boolean): Exchange {
    const exchange = new Exchange(res, ids, headers, batch, () => this.openStream());
    for (const id of ids) this.exchanges.set(key(id), exchange);
    return exchange;
  }

  private openStream(): SseStream {
    const stream = new SseStream(this.events.newStreamId(), this.events, (done) => this.streams.delete(done.id));
    this.streams.set(stream.id, stream);
    return stream;
  }

  inFlight(id: RequestId): boolean {
    return this.exchanges.has(key(id));
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
    if (this.standalone?.connected) {
      this.standalone.send(message);
      return true;
    }
    // No stream of its own: ride on any call of this session still on the wire.
    for (const exchange of this.exchanges.values()) if (exchange.connected && exchange.write(message)) return true;
    // Nobody is connected: a standalone stream the client can resume keeps it for the replay.
    if (this.standalone && !this.standalone.ended) {
      this.standalone.send(message);
      return true;
    }
    return false;
  }

  /** A GET without Last-Event-ID: a new standalone stream (the previous one ends). */
  openStandalone(res: BridgeResponse, headers: Record<string, string>): void {
    this.standalone?.end();
    const stream = this.openStream();
    this.standalone = stream;
    // The priming event hands the client an id to resume from before anything was sent.
    const priming = this.protocolVersion !== undefined && this.protocolVersion >= PRIMING_SINCE;
    stream.attach(res, headers, [], priming ? this.events.priming(stream.id) : `: stream open\nretry: ${RETRY_MS}\n\n`);
  }

  /** A GET with Last-Event-ID: what that stream sent after the event, then the rest of it if still open. */
  resume(lastEventId: string, res: BridgeResponse, headers: Record<string, string>): ResumeOutcome {
    const at = parseEventId(lastEventId);
    if (!at) return "invalid";
    const stream = this.streams.get(at.stream);
    const replay = this.events.after(at.stream, at.seq);
    if (!stream || (stream.ended && replay.length === 0)) return "nothing";
    stream.attach(res, headers, replay);
    return "resumed";
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.streams.values()) stream.end();
    this.events.clear();
    this.onclose?.();
  }
}

/** A legacy (2024-11-05) HTTP+SSE session on the SDK's own transport. */
export class LegacySseSession implements Downstream {
  clientCapabilities: ClientCapabilities = {};
  lastSeen = Date.now();

  constructor(
    readonly transport: SSEServerTransport,
    readonly user = "",
  ) {}

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
