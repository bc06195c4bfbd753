// SSE streams of a Streamable HTTP session, and the replay buffer behind resumability
// (MCP 2025-11-25, Streamable HTTP, "Resumability and Redelivery"). Every event the
// bridge writes carries an id `<stream>_<seq>`: `stream` names the SSE stream (a POST
// answered as SSE, or a standalone GET stream) and `seq` counts events across the whole
// session, so an id is unique in its session and a Last-Event-ID says which stream to
// resume and from where. A stream whose connection drops keeps its events here until
// the client resumes it with GET + Last-Event-ID, or the buffer's bounds push them out.
import type { BridgeResponse } from "./request";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Sent as `retry:` at the start of every stream: how long a client waits before it reconnects. Same as the SDK client's own first delay. */
export const RETRY_MS = 1_000;

/**
 * Per session, at most this many events and about this many bytes are kept for replay
 * (the newest event always stays, however large). A stream that ends on a connection
 * that stays up to its last byte drops its events at once, so in normal use the buffer
 * holds only the standalone stream's recent events: it fills only while a stream is
 * broken. What a broken stream can miss before the client is back (the SDK client
 * reconnects after `retry`, twice at most) is a few seconds of progress notifications
 * plus the final answer: 256 events is over 80 events a second for 3 s, and 1 MiB holds
 * any ordinary tool result while 20 sessions with broken streams stay near 20 MiB.
 */
const REPLAY_MAX_EVENTS = 256;
const REPLAY_MAX_BYTES = 1024 * 1024;

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" };

/** Clients before 2025-11-25 cannot take an event with empty data (the priming event): they try to parse it. */
export const PRIMING_SINCE = "2025-11-25";

export interface EventId {
  stream: number;
  seq: number;
}

export function parseEventId(text: string): EventId | undefined {
  const match = /^(\d{1,9})_(\d{1,15})$/.exec(text.trim());
  return match ? { stream: Number(match[1]), seq: Number(match[2]) } : undefined;
}

interface Stored {
  stream: number;
  seq: number;
  frame: string;
}

/** A session's event ids and its bounded replay buffer. */
export class SessionEvents {
  private seq = 0;
  private nextStream = 1;
  private events: Stored[] = [];
  private chars = 0;

  newStreamId(): number {
    return this.nextStream++;
  }

  /** The SSE frame for `message` on `stream`, remembered for replay. */
  frame(stream: number, message: JSONRPCMessage): string {
    const seq = ++this.seq;
    const frame = `id: ${stream}_${seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
    this.events.push({ stream, seq, frame });
    this.chars += frame.length;
    let drop = 0;
    while (this.events.length - drop > 1 && (this.events.length - drop > REPLAY_MAX_EVENTS || this.chars > REPLAY_MAX_BYTES)) {
      this.chars -= this.events[drop]?.frame.length ?? 0;
      drop++;
    }
    if (drop > 0) this.events.splice(0, drop);
    return frame;
  }

  /** An event with an id and no data: gives the client a Last-Event-ID before anything else is sent. */
  priming(stream: number): string {
    return `id: ${stream}_${++this.seq}\nretry: ${RETRY_MS}\ndata: \n\n`;
  }

  /** Frames of `stream` sent after event `seq`, oldest first. */
  after(stream: number, seq: number): string[] {
    return this.events.filter((e) => e.stream === stream && e.seq > seq).map((e) => e.frame);
  }

  drop(stream: number): void {
    const kept = this.events.filter((e) => e.stream !== stream);
    if (kept.length === this.events.length) return;
    this.events = kept;
    this.chars = kept.reduce((sum, e) => sum + e.frame.length, 0);
  }

  clear(): void {
    this.events = [];
    this.chars = 0;
  }
}

/**
 * One logical SSE stream. Its connection may drop and be replaced by a resuming GET;
 * events sent while it has none are only buffered. When it ends on a connection that
 * carried it to the last byte, its events are dropped; if that connection broke first,
 * they stay so a resuming GET can still fetch the tail.
 */
export class SseStream {
  private res?: BridgeResponse;
  ended = false;

  constructor(
    readonly id: number,
    private readonly events: SessionEvents,
    /** Called once the stream has ended and its last byte was handed to the client. */
    private readonly onDone: (stream: SseStream) => void,
  ) {}

  get connected(): boolean {
    return this.res !== undefined && !this.res.destroyed && !this.res.writableEnded;
  }

  /**
   * Makes `res` carry the stream from now on: `opening` (by default just the `retry`
   * field), then `replay`. A previous connection is dropped.
   */
  attach(res: BridgeResponse, headers: Record<string, string>, replay: string[] = [], opening = `retry: ${RETRY_MS}\n\n`): void {
    const previous = this.res;
    this.res = res;
    if (previous && previous !== res) previous.destroy();
    if (!res.headersSent) res.writeHead(200, { ...SSE_HEADERS, ...headers });
    res.write(opening);
    for (const frame of replay) res.write(frame);
    res.on("close", () => {
      if (this.res === res) this.res = undefined;
    });
    if (this.ended) this.finish(res);
  }

  send(message: JSONRPCMessage): void {
    const frame = this.events.frame(this.id, message);
    if (this.connected) this.res?.write(frame);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.connected && this.res) this.finish(this.res);
  }

  private finish(res: BridgeResponse): void {
    // "finish": every byte was handed to the socket, so nothing is left to resume.
    res.once("finish", () => {
      this.events.drop(this.id);
      this.onDone(this);
    });
    res.end();
  }
}
