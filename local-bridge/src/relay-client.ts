// `connect` mode's one outgoing WebSocket to the Worker (`/machines/connect`), kept up
// with backoff and a heartbeat. Each `req` frame is a session's HTTP request to one of
// this machine's servers: it is replayed against the bridge's own HTTP handler over an
// in-memory connection (so every MCP feature the bridge serves works unchanged), and the
// answer streams back as `head`, `data`…, `end`. Nothing listens: no port, no socket file.
import { Agent, request as httpRequest, type ClientRequest } from "node:http";
import type { Duplex } from "node:stream";
import { MAX_CHUNK_CHARS, PING, SERVERS_HEADER, ToBridgeSchema, type ToWorker } from "@edgehost/shared/machine-frames";
import { backoffDelay } from "@edgehost/shared/backoff";
import { errorMessage, type Logger } from "@edgehost/shared/logger";
import WebSocket from "ws";

const HEARTBEAT_MS = 25_000;
/** No frame at all (not even the pong) for this long: the connection is dead. */
const DEAD_AFTER_MS = 60_000;
const BACKOFF = { initialMs: 500, maxMs: 30_000 };
/** The bridge's answer headers the Worker passes on (the rest stay here). */
const ANSWER_HEADERS = new Set(["content-type", "mcp-session-id", "allow", "cache-control"]);

export interface RelayOptions {
  /** The deployment's origin, e.g. https://chat.example.com. */
  origin: string;
  credential: string;
  /** A new connection to the bridge's handler (bridge.ts `connectInMemory`), and its token. */
  connect: () => Duplex;
  token: string;
  servers: () => string[];
  logger: Logger;
  /** The Worker no longer knows this machine (revoked, or the credential refused): stop for good. */
  onRevoked: (why: string) => void;
  onOnline?: () => void;
}

export class RelayClient {
  private socket?: WebSocket;
  private readonly inFlight = new Map<number, ClientRequest>();
  private attempt = 0;
  private stopped = false;
  private heartbeat?: ReturnType<typeof setInterval>;
  private lastHeard = 0;
  private retry?: ReturnType<typeof setTimeout>;
  /** Kept-alive in-memory connections to the bridge: no new connection per request. */
  private readonly agent = new Agent({ keepAlive: true });

  constructor(private readonly options: RelayOptions) {
    // Agent's documented hook for custom sockets (any Duplex); @types/node omits it.
    Object.assign(this.agent, { createConnection: () => options.connect() });
  }

  start(): void {
    this.open();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    for (const request of this.inFlight.values()) request.destroy();
    this.agent.destroy();
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
      for (const request of this.inFlight.values()) request.destroy();
      this.inFlight.clear();
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
    const request = httpRequest({ method: frame.method, path: frame.path, headers, agent: this.agent }, (response) => {
      const answer: [string, string][] = [];
      for (const [name, value] of Object.entries(response.headers)) {
        if (ANSWER_HEADERS.has(name) && typeof value === "string") answer.push([name, value]);
      }
      const status = response.statusCode ?? 502;
      response.setEncoding("utf8");
      // A plain JSON answer goes back whole, in one frame; a stream (SSE) as it comes.
      if (!String(response.headers["content-type"] ?? "").startsWith("text/event-stream")) {
        let body = "";
        response.on("data", (chunk: string) => (body += chunk));
        response.on("close", () => {
          if (!this.inFlight.delete(id)) return;
          if (body.length <= MAX_CHUNK_CHARS) return this.send({ t: "full", id, status, headers: answer, body });
          this.send({ t: "head", id, status, headers: answer });
          for (let at = 0; at < body.length; at += MAX_CHUNK_CHARS) this.send({ t: "data", id, chunk: body.slice(at, at + MAX_CHUNK_CHARS) });
          this.send({ t: "end", id });
        });
        response.on("error", () => undefined);
        return;
      }
      this.send({ t: "head", id, status, headers: answer });
      response.on("data", (chunk: string) => {
        for (let at = 0; at < chunk.length; at += MAX_CHUNK_CHARS) this.send({ t: "data", id, chunk: chunk.slice(at, at + MAX_CHUNK_CHARS) });
      });
      // After the last chunk, or when the bridge cut the answer short (its child died): either way it ended.
      response.on("close", () => {
        if (this.inFlight.delete(id)) this.send({ t: "end", id });
      });
      response.on("error", () => undefined);
    });
    request.on("error", (error) => {
      if (!this.inFlight.has(id)) return;
      this.inFlight.delete(id);
      this.send({ t: "fail", id, message: errorMessage(error).slice(0, 200) });
    });
    this.inFlight.set(id, request);
    request.end(frame.body);
  }

  private send(frame: ToWorker): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }
}
