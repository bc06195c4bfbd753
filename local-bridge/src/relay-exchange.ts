// A relayed request handed to the bridge's own handler (http.ts) as objects, with no HTTP
// in between: `connect` mode used to replay each `req` frame as an HTTP request over an
// in-memory connection, and the HTTP client and parser on both ends cost more than half
// a millisecond a call (bench:relay). The handler reads a request and writes a response
// through the few members `BridgeRequest`/`BridgeResponse` name (request.ts), which a
// Node request and response have and these two stand in for.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import { Readable, Writable } from "node:stream";
import type { BridgeRequest, BridgeResponse } from "./request";

/** A request whose whole body is known already (the `req` frame carries it). */
export class RelayRequest extends Readable implements BridgeRequest {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: IncomingHttpHeaders,
    body: string | undefined,
  ) {
    super();
    if (body) this.push(Buffer.from(body, "utf8"));
    this.push(null);
  }

  override _read(): void {}
}

/** What becomes of the handler's answer: frames to the Worker (relay-client.ts). */
export interface AnswerSink {
  /** The status and headers, once written; `streamed` when the body comes as it is written (SSE). */
  head(status: number, headers: Record<string, string>, streamed: boolean): void;
  /** A streamed answer's next text. */
  data(chunk: string): void;
  /** The answer ended (`body`: a not-streamed answer's whole text), or was cut short (`complete` false). */
  end(body: string, complete: boolean, streamed: boolean): void;
}

const SSE_TYPE = "text/event-stream";

export class RelayResponse extends Writable implements BridgeResponse {
  private status = 0;
  private streamed = false;
  private body = "";
  private ended = false;

  constructor(private readonly sink: AnswerSink) {
    super({ decodeStrings: false });
    // A write after the session went away is dropped, as on a closed socket (never an uncaught error).
    this.on("error", () => undefined);
    // Destroyed before its end (the session went away, or the handler dropped it): cut short.
    this.once("close", () => this.finishOnce(false));
  }

  get headersSent(): boolean {
    return this.status !== 0;
  }

  writeHead(status: number, given: OutgoingHttpHeaders = {}): this {
    if (this.status !== 0) return this;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) if (typeof value === "string") headers[name.toLowerCase()] = value;
    this.status = status;
    this.streamed = (headers["content-type"] ?? "").startsWith(SSE_TYPE);
    this.sink.head(status, headers, this.streamed);
    return this;
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    // A write before writeHead is an implicit 200, as Node's response has it.
    if (this.status === 0) this.writeHead(200);
    const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
    if (this.streamed) this.sink.data(text);
    else this.body += text;
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    if (this.status === 0) this.writeHead(200);
    this.finishOnce(true);
    done();
  }

  private finishOnce(complete: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.sink.end(this.body, complete, this.streamed);
  }
}
