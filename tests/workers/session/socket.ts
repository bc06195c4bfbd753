// A WebSocket client for tests running inside workerd: opens a session socket on
// the Worker (SELF) and lets a test await messages by predicate, never by time.
import { SELF } from "cloudflare:test";
import type { ServerMessage } from "../../../src/protocol/messages";
import { authHeaders, type TestUser } from "../test-users";

export class TestSocket {
  readonly received: ServerMessage[] = [];
  private readonly waiters = new Set<() => void>();
  closed = false;

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener("message", (event) => {
      this.received.push(JSON.parse(String(event.data)) as ServerMessage);
      for (const check of [...this.waiters]) check();
    });
    ws.addEventListener("close", () => {
      this.closed = true;
      for (const check of [...this.waiters]) check();
    });
  }

  static async open(sessionId: string, user: TestUser = "alice"): Promise<TestSocket> {
    const response = await SELF.fetch(`http://edgehost.test/sessions/${sessionId}/ws`, { headers: authHeaders(user, { Upgrade: "websocket" }) });
    const ws = response.webSocket;
    if (!ws) throw new Error(`no WebSocket: ${response.status} ${await response.text()}`);
    ws.accept();
    const socket = new TestSocket(ws);
    await socket.next((m) => m.type === "history");
    return socket;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  sendRaw(data: string | ArrayBuffer): void {
    this.ws.send(data);
  }

  /** The first message (after `after` messages) matching `predicate`, waiting for it if needed. */
  next<T extends ServerMessage["type"]>(predicate: (m: ServerMessage) => m is Extract<ServerMessage, { type: T }>, after?: number, timeoutMs?: number): Promise<Extract<ServerMessage, { type: T }>>;
  next(predicate: (m: ServerMessage) => boolean, after?: number, timeoutMs?: number): Promise<ServerMessage>;
  next(predicate: (m: ServerMessage) => boolean, after = 0, timeoutMs = 20_000): Promise<ServerMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.received.slice(after).find(predicate);
        if (found) {
          this.waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting; received: ${JSON.stringify(this.received.slice(after)).slice(0, 3000)}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Waits for the end of `turnId` (or the next turn_end) and returns what happened since `from`. */
  async turnEnd(from = 0): Promise<{ end: Extract<ServerMessage, { type: "turn_end" }>; messages: ServerMessage[] }> {
    const end = (await this.next((m) => m.type === "turn_end", from)) as Extract<ServerMessage, { type: "turn_end" }>;
    return { end, messages: this.received.slice(from) };
  }

  close(): void {
    this.ws.close(1000, "test done");
  }
}
