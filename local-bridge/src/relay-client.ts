// `connect` mode's one outgoing WebSocket to the Worker (`/machines/connect`), kept up
// with backoff and a heartbeat. Each `req` frame is a session's HTTP request to one of
// this machine's servers: it is handed to the bridge's own request handler as objects
// (relay-exchange.ts: no HTTP is written or parsed, and every MCP feature the bridge
// serves works unchanged), and the answer goes back whole as `full`, or as it streams as
// `head`, `data`…, `end`. Nothing listens: no port, no socket file.
import { MAX_CHUNK_CHARS, PING, SERVERS_HEADER, ToBridgeSchema, type ToWorker } from "@edgehost/shared/machine-frames";
import { backoffDelay } from "@edgehost/shared/backoff";
import { errorMessage, type Logger } from "@edgehost/shared/logger";
import WebSocket from "ws";
import { RelayRequest, RelayResponse } from "./relay-exchange";
import type { RequestHandler } from "./request";

const HEARTBEAT_MS = 25_000;
/** No frame at all (not even the pong) for this long: the connection is dead. */
const DEAD_AFTER_MS = 60_000;
const BACKOFF = { initialMs: 500, maxMs: 30_000 };
/** The bridge's answer headers the Worker passes on (the rest stay here). */
const ANSWER_HEADERS = ["content-type", "mcp-session-id", "allow", "cache-control"];

export interface RelayOptions {
  /** The deployment's origin, e.g. https://chat.example.com. */
  origin: string;
  credential: string;
  /** The bridge's request handler (bridge.ts `handle`), and its token. */
  handle: RequestHandler;
  token: string;
  servers: () => string[];
  logger: Logger;
  /** The Worker no longer knows this machine (revoked, or the credential refused): stop for good. */
  onRevoked: (why: string) => void;
  onOnline?: () => void;
}

export class RelayClient {
  private socket?: WebSocket;
  private readonly inFlight = new Map<number, RelayResponse>();
  private attempt = 0;
  private stopped = false;
  private heartbeat?: ReturnType<typeof setInterval>;
  private lastHeard = 0;
  private retry?: ReturnType<typeof setTimeout>;
  constructor(private readonly options: RelayOptions) {}

  start(): void {
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    for (const response of this.inFlight.values()) response.destroy();
    this.socket?.close(1000, "bridge stopping");
  }

  /** Re-announces the servers (mcp.json changed). */
  announce(): void {
    this.send({ t: "hello", servers: this.options.servers() });
  }

  private open(): void {
    const url = `${this.options.origin.replace(/^http/, "ws")}/machines/connect`;
    // No per-message compression: frames are small and many, and deflate costs more than it saves here.
    const socket = new WebSocket(url, {
      perMessageDeflate: false,
      headers: { authorization: `Bearer ${this.options.credential}`, [SERVERS_HEADER]: this.options.servers().join(",") },
      maxPayload: 8 * 1024 * 1024,
    });
    this.socket = socket;
    socket.on("open", () => {
      this.attempt = 0;
      this.lastHeard = Date.now();
      this.options.logger.info("connected to the deployment", { origin: this.options.origin });
      this.announce();
      clearInterval(this.heartbeat);
      this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
      this.heartbeat.unref();
      this.options.onOnline?.();
    });
    socket.on("unexpected-response", (_request, response) => {
      // 401: the credential is revoked or was never valid; retrying cannot help.
      if (response.statusCode === 401) this.revoked("the deployment refused this machine's credential (it was removed): pair again");
      else this.options.logger.warn("the deployment refused the connection", { status: response.statusCode });
      socket.terminate();
    });
    socket.on("message", (data, isBinary) => {
      this.lastHeard = Date.now();
      if (!isBinary) this.onFrame(data.toString());
    });
    socket.on("close", (code) => {
      clearInterval(this.heartbeat);
      const cut = [...this.inFlight.values()];
      this.inFlight.clear();
      for (const response of cut) response.destroy();
      if (code === 4001) this.revoked("this machine was removed on the page");
      if (this.stopped) return;
      const delay = backoffDelay(this.attempt++, BACKOFF);
      this.options.logger.warn("disconnected from the deployment; reconnecting", { code, inMs: delay });
      this.retry = setTimeout(() => this.open(), delay);
    });
    socket.on("error", (error) => this.options.logger.debug("relay socket error", { error: errorMessage(error) }));
  }

  private beat(): void {
    if (Date.now() - this.lastHeard > DEAD_AFTER_MS) {
      this.socket?.terminate();
      return;
    }
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(PING);
  }

  private revoked(why: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.options.onRevoked(why);
  }

  private onFrame(text: string): void {
    if (text === "pong") return;
    let frame;
    try {
      frame = ToBridgeSchema.parse(JSON.parse(text));
    } catch {
      this.options.logger.warn("ignored an invalid frame from the deployment");
      return;
    }
    if (frame.t === "revoked") return this.revoked("this machine was removed on the page");
    if (frame.t === "abort") {
      this.inFlight.get(frame.id)?.destroy();
      this.inFlight.delete(frame.id);
      return;
    }
    const { id } = frame;
    const headers: Record<string, string> = {};
    for (const [name, value] of frame.headers) headers[name.toLowerCase()] = value;
    // The bridge's own credentials; nothing from the Worker can name another host or token.
    headers.host = "localhost";
    headers.authorization = `Bearer ${this.options.token}`;
    let status = 0;
    let answer: [string, string][] = [];
    // Numbered, so the Worker can put the chunks back in order (machine-frames.ts).
    let chunks = 0;
    const sendData = (text: string) => {
      for (let at = 0; at < text.length; at += MAX_CHUNK_CHARS) this.send({ t: "data", id, chunk: text.slice(at, at + MAX_CHUNK_CHARS), seq: chunks++ });
    };
    const response = new RelayResponse({
      head: (code, given, streamed) => {
        status = code;
        answer = ANSWER_HEADERS.flatMap((name): [string, string][] => (given[name] === undefined ? [] : [[name, given[name]]]));
        // A stream (SSE) goes as it comes; a plain JSON answer goes back whole, in one frame, at its end.
        if (streamed) this.send({ t: "head", id, status, headers: answer });
      },
      data: (text) => {
        if (!this.inFlight.has(id)) return;
        sendData(text);
      },
      end: (body, complete, streamed) => {
        if (!this.inFlight.delete(id)) return;
        // After the last chunk, or when the bridge cut a stream short (its child died): either way it ended.
        if (streamed) return this.send({ t: "end", id, chunks });
        if (!complete) return this.send({ t: "fail", id, message: "the bridge dropped the answer" });
        if (body.length <= MAX_CHUNK_CHARS) return this.send({ t: "full", id, status, headers: answer, body });
        this.send({ t: "head", id, status, headers: answer });
        sendData(body);
        this.send({ t: "end", id, chunks });
      },
    });
    this.inFlight.set(id, response);
    this.options.handle(new RelayRequest(frame.method, frame.path, headers, frame.body), response);
  }

  private send(frame: ToWorker): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }
}
