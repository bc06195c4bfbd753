// A chat session as the benches drive it, on the shared client
// (tests/fixtures/session-client.ts): runs turns and times them, `message` sent →
// `turn_end` received, with marks of when the milestones arrived. A turn is an error
// when the session sends an `error` frame, a tool call reports `status: error`, a
// notice says a server is unavailable, no tool call completed, or turn_end's reason
// is not `complete`.
import type { Message, SessionClient } from "../../tests/fixtures/session-client";
import { openSession } from "../../tests/fixtures/session-client-node";

export interface TurnResult {
  ms: number;
  /** Why the turn counts as an error, if it does. */
  error?: string;
  /** When (ms after sending) milestones arrived: turn_start, tool (status processing), toolDone (complete), text (first delta). */
  marks?: Record<string, number>;
}

export class TimedSession {
  /** `error` frames that arrived outside a turn. */
  readonly strays: string[] = [];
  private busy = false;

  private constructor(readonly client: SessionClient) {
    client.observe({
      frame: (_text, _binary, m) => {
        if (m?.type === "error" && !this.busy) this.strays.push(errorText(m));
      },
    });
  }

  get id(): string {
    return this.client.sessionId;
  }

  /** Opens the socket; resolves once the session's history arrived, and refuses a session without a model. */
  static async open(baseUrl: string, id: string, timeoutMs: number): Promise<TimedSession> {
    const client = await openSession(baseUrl, id, { timeoutMs }).catch((error: unknown) => {
      throw new Error(`session ${id}: ${error instanceof Error ? error.message : String(error)}`);
    });
    const connection = client.received.find((m): m is Message<"connection"> => m.type === "connection");
    if (connection?.model === null) {
      void client.close();
      throw new Error(`session ${id}: no model (${String(connection.notice)})`);
    }
    return new TimedSession(client);
  }

  /** Resolves true once a `servers` frame shows every server ready (false on timeout or a closed socket). */
  waitForServers(timeoutMs: number): Promise<boolean> {
    const ready = (m: Message<"servers">) => m.servers.length > 0 && m.servers.every((s) => s.state === "ready" || !s.enabled);
    return this.client
      .next((m) => m.type === "servers" && ready(m), 0, timeoutMs)
      .then(
        () => true,
        () => false,
      );
  }

  /** One turn: `message` sent → `turn_end` received. */
  turn(text: string, timeoutMs: number): Promise<TurnResult> {
    if (this.client.isClosed) return Promise.resolve({ ms: 0, error: "socket closed" });
    if (this.busy) return Promise.resolve({ ms: 0, error: "bench bug: overlapping turns on one socket" });
    this.busy = true;
    const start = performance.now();
    return new Promise((resolve) => {
      const marks: Record<string, number> = {};
      const problems: string[] = [];
      let started = false;
      let toolOk = false;
      const mark = (name: string) => (marks[name] ??= performance.now() - start);
      const finish = ({ reason, problem }: { reason?: string; problem?: string }) => {
        clearTimeout(timer);
        stop();
        this.busy = false;
        const ms = performance.now() - start;
        if (problem) problems.push(problem);
        if (reason !== undefined && reason !== "complete") problems.push(`turn_end ${reason}`);
        if (reason === "complete" && !toolOk) problems.push("no tool call completed");
        resolve(problems.length > 0 ? { ms, error: problems.join("; ") } : { ms, marks });
      };
      const stop = this.client.observe({
        closed: (code) => finish({ problem: `socket closed (${code})` }),
        frame: (_text, _binary, m) => {
          if (m === undefined) return void problems.push("unparsable frame");
          if (m.type === "turn_start") {
            started = true;
            mark("turn_start");
          } else if (m.type === "text") {
            mark("text");
          } else if (m.type === "status") {
            if (m.state === "processing") mark("tool");
            if (m.state === "complete") mark("toolDone");
            if (typeof m.durationMs === "number") marks.toolReported ??= m.durationMs;
            if (m.state === "complete") toolOk = true;
            if (m.state === "error") problems.push(`tool error: ${String(m.error).slice(0, 120)}`);
          } else if (m.type === "entry") {
            if (m.entry.kind === "notice" && /unavailable|error|failed/i.test(m.entry.text ?? ""))
              problems.push(`notice: ${String(m.entry.text).slice(0, 120)}`);
          } else if (m.type === "error") {
            // Refused before the turn started (rate_limited, turn_in_progress): no turn_end follows.
            if (!started) finish({ problem: errorText(m) });
            else problems.push(errorText(m));
          } else if (m.type === "turn_end") {
            finish({ reason: m.reason });
          }
        },
      });
      const timer = setTimeout(() => finish({ problem: `no turn_end within ${timeoutMs} ms` }), timeoutMs);
      this.client.say(text);
    });
  }

  /** `{"type":"ping"}` → `{"type":"pong"}` round trip (answered by the runtime, no object code), ms. */
  async ping(timeoutMs: number): Promise<number> {
    const start = performance.now();
    const from = this.client.received.length;
    this.client.sendRaw('{"type":"ping"}');
    await this.client.next((m) => m.type === "pong", from, timeoutMs);
    return performance.now() - start;
  }

  /**
   * An answer to an approval nobody asked for → its typed error: a frame the object's
   * own code parses and answers without storage, model or MCP (a WebSocket event's
   * cost in the object), ms.
   */
  async echo(timeoutMs: number): Promise<number> {
    const start = performance.now();
    const from = this.client.received.length;
    this.client.sendRaw('{"type":"approval","callId":"bench-none","approved":false}');
    await this.client.next((m) => m.type === "error" && m.code === "unknown_approval", from, timeoutMs);
    return performance.now() - start;
  }

  close(): void {
    void (this.client.isClosed ? undefined : this.client.close());
  }
}

const errorText = (m: Message<"error">) => `error ${m.code}: ${m.message.slice(0, 120)}`;
