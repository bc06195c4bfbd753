// A chat-session client for bench/turn.ts over the `ws` package: opens
// ws://HOST/sessions/{id}/ws, waits for the `connection` frame (and, on request,
// for the session's MCP servers to be ready), and runs turns: sends `message`,
// times until `turn_end`. A turn is an error when the session sends an `error`
// frame, a tool call reports `status: error`, a notice says a server is
// unavailable, or turn_end's reason is not `complete`.
import { createRequire } from "node:module";

/** The part of ws's WebSocket this file uses (the package ships no types here). */
interface WsSocket {
  readonly readyState: number;
  on(event: "open", listener: () => void): void;
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: "close", listener: (code: number, reason: Buffer) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  send(data: string): void;
  close(code?: number): void;
  terminate(): void;
}
type WsConstructor = new (url: string, options?: { perMessageDeflate?: boolean }) => WsSocket;
const WebSocketClient = createRequire(import.meta.url)("ws") as WsConstructor;
const OPEN = 1;

interface Frame {
  type: string;
  [key: string]: unknown;
}

export interface TurnResult {
  ms: number;
  /** Why the turn counts as an error, if it does. */
  error?: string;
  /** When (ms after sending) milestones arrived: turn_start, tool (status processing), toolDone (complete), text (first delta). */
  marks?: Record<string, number>;
}

interface Waiter {
  started: boolean;
  marks: Record<string, number>;
  toolOk: boolean;
  problems: string[];
  finish(result: { reason?: string; problem?: string }): void;
}

export class SessionClient {
  private waiter?: Waiter;
  private serversReady?: () => void;
  private ready = false;
  private closed?: string;
  /** `error` frames that arrived outside a turn. */
  readonly strays: string[] = [];
  private sentAt = 0;
  private pong?: () => void;

  private constructor(
    readonly id: string,
    private readonly socket: WsSocket,
  ) {
    socket.on("message", (data) => this.onFrame(data.toString("utf8")));
    socket.on("close", (code) => this.onGone(`socket closed (${code})`));
    socket.on("error", (error) => this.onGone(`socket error: ${error.message}`));
  }

  /** Opens the socket; resolves on the `connection` frame. */
  static open(baseUrl: string, id: string, timeoutMs: number): Promise<SessionClient> {
    const socket = new WebSocketClient(`${baseUrl.replace(/^http/, "ws")}/sessions/${encodeURIComponent(id)}/ws`, { perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error(`session ${id}: no connection frame within ${timeoutMs} ms`));
      }, timeoutMs);
      const fail = (why: string) => {
        clearTimeout(timer);
        reject(new Error(`session ${id}: ${why}`));
      };
      socket.on("error", (error) => fail(error.message));
      socket.on("close", (code) => fail(`closed (${code}) before the connection frame`));
      const first = (data: Buffer) => {
        const frame = JSON.parse(data.toString("utf8")) as Frame;
        if (frame.type !== "connection") return;
        clearTimeout(timer);
        if (frame.model === null) {
          socket.close();
          return reject(new Error(`session ${id}: no model (${String(frame.notice)})`));
        }
        resolve(new SessionClient(id, socket));
      };
      socket.on("message", first);
    });
  }

  /** Resolves true once a `servers` frame shows every server ready (false on timeout). */
  waitForServers(timeoutMs: number): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.serversReady = undefined;
        resolve(false);
      }, timeoutMs);
      this.serversReady = () => {
        clearTimeout(timer);
        this.serversReady = undefined;
        resolve(true);
      };
    });
  }

  /** One turn: `message` sent → `turn_end` received. */
  turn(text: string, timeoutMs: number): Promise<TurnResult> {
    const start = performance.now();
    if (this.closed || this.socket.readyState !== OPEN) return Promise.resolve({ ms: 0, error: this.closed ?? "socket not open" });
    if (this.waiter) return Promise.resolve({ ms: 0, error: "bench bug: overlapping turns on one socket" });
    return new Promise((resolve) => {
      const timer = setTimeout(() => waiter.finish({ problem: `no turn_end within ${timeoutMs} ms` }), timeoutMs);
      const waiter: Waiter = {
        started: false,
        marks: {},
        toolOk: false,
        problems: [],
        finish: ({ reason, problem }) => {
          clearTimeout(timer);
          if (this.waiter !== waiter) return;
          this.waiter = undefined;
          const ms = performance.now() - start;
          if (problem) waiter.problems.push(problem);
          if (reason !== undefined && reason !== "complete") waiter.problems.push(`turn_end ${reason}`);
          if (reason === "complete" && !waiter.toolOk) waiter.problems.push("no tool call completed");
          resolve(waiter.problems.length > 0 ? { ms, error: waiter.problems.join("; ") } : { ms, marks: waiter.marks });
        },
      };
      this.waiter = waiter;
      this.sentAt = start;
      this.socket.send(JSON.stringify({ type: "message", text }));
    });
  }

  /** `{"type":"ping"}` → `{"type":"pong"}` round trip (answered by the runtime, no object code), ms. */
  ping(timeoutMs: number): Promise<number> {
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pong = undefined;
        reject(new Error(`no pong within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pong = () => {
        clearTimeout(timer);
        this.pong = undefined;
        resolve(performance.now() - start);
      };
      this.socket.send('{"type":"ping"}');
    });
  }

  close(): void {
    if (this.socket.readyState === OPEN) this.socket.close(1000);
    else this.socket.terminate();
  }

  private onFrame(raw: string): void {
    let frame: Frame;
    try {
      frame = JSON.parse(raw) as Frame;
    } catch {
      this.waiter?.problems.push("unparsable frame");
      return;
    }
    const w = this.waiter;
    const mark = (name: string) => {
      if (w && w.marks[name] === undefined) w.marks[name] = performance.now() - this.sentAt;
    };
    switch (frame.type) {
      case "pong":
        this.pong?.();
        return;
      case "servers": {
        const list = (frame.servers ?? []) as { state?: string; enabled?: boolean }[];
        if (list.length > 0 && list.every((s) => s.state === "ready" || s.enabled === false)) {
          this.ready = true;
          this.serversReady?.();
        }
        return;
      }
      case "turn_start":
        if (w) w.started = true;
        mark("turn_start");
        return;
      case "text":
        mark("text");
        return;
      case "status":
        if (frame.state === "processing") mark("tool");
        if (frame.state === "complete") mark("toolDone");
        if (w && typeof frame.durationMs === "number") w.marks.toolReported ??= frame.durationMs;
        if (w && frame.state === "complete") w.toolOk = true;
        if (w && frame.state === "error") w.problems.push(`tool error: ${String(frame.error).slice(0, 120)}`);
        return;
      case "entry": {
        const entry = frame.entry as { kind?: string; text?: string } | undefined;
        if (w && entry?.kind === "notice" && /unavailable|error|failed/i.test(entry.text ?? "")) w.problems.push(`notice: ${String(entry.text).slice(0, 120)}`);
        return;
      }
      case "error": {
        const what = `error ${String(frame.code)}: ${String(frame.message).slice(0, 120)}`;
        if (!w) return void this.strays.push(what);
        // Rejected before the turn started (rate_limited, turn_in_progress): no turn_end follows.
        if (!w.started) w.finish({ problem: what });
        else w.problems.push(what);
        return;
      }
      case "turn_end":
        w?.finish({ reason: String(frame.reason) });
        return;
    }
  }

  private onGone(why: string): void {
    this.closed ??= why;
    this.waiter?.finish({ problem: why });
  }
}
