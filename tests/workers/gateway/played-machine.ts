// A paired machine played by the test (a bridge in `connect` mode cannot reach the workerd
// under test): it pairs as a person, holds the machine's socket, and answers each `req`
// frame by forwarding it to a real MCP server (server-everything over Streamable HTTP), as
// the bridge forwards to its stdio children. `hold()` keeps requests unanswered until
// `release()`, so a test can show what was answered without the machine.
import { SELF } from "cloudflare:test";
import type { ToBridge, ToWorker } from "../../../src/shared/machine-frames";
import { authHeaders, type TestUser } from "../test-users";

const ORIGIN = "https://edgehost.test";
const json = { "content-type": "application/json" };

/** Each pairing from an address of its own: an address may start only a few pairings in 10 minutes. */
let pairings = 0;

export class PlayedMachine {
  /** Requests the Worker sent, in order (method and JSON-RPC method of each POST). */
  readonly requests: string[] = [];
  private held: Extract<ToBridge, { t: "req" }>[] | undefined;
  private readonly streams = new Map<number, ReadableStreamDefaultReader<Uint8Array>>();

  private constructor(
    readonly id: string,
    readonly ws: WebSocket,
    private readonly upstream: string,
    private readonly user: TestUser,
  ) {
    ws.addEventListener("message", (event) => {
      if (event.data === "pong") return;
      const frame = JSON.parse(String(event.data)) as ToBridge;
      if (frame.t === "abort") void this.streams.get(frame.id)?.cancel();
      if (frame.t !== "req") return;
      this.requests.push(`${frame.method} ${frame.body ? ((JSON.parse(frame.body) as { method?: string }).method ?? "response") : ""}`.trim());
      if (this.held) this.held.push(frame);
      else void this.forward(frame);
    });
  }

  /** Pairs a machine named `name` for `user` offering one server, `everything`, and opens its socket. */
  static async connect(user: TestUser, name: string, upstream: string): Promise<PlayedMachine> {
    const from = `198.51.100.${200 + (++pairings % 50)}`;
    const started = (await (
      await SELF.fetch(`${ORIGIN}/api/machines/pair`, { method: "POST", headers: { ...json, "cf-connecting-ip": from }, body: JSON.stringify({ name }) })
    ).json()) as { code: string; pollToken: string };
    const approved = await SELF.fetch(`${ORIGIN}/api/machines/approve`, {
      method: "POST",
      headers: authHeaders(user, json),
      body: JSON.stringify({ code: started.code }),
    });
    const { machine } = (await approved.json()) as { machine: { id: string } };
    const polled = (await (await SELF.fetch(`${ORIGIN}/api/machines/pair/poll`, { method: "POST", headers: json, body: JSON.stringify(started) })).json()) as {
      credential: string;
    };
    const response = await SELF.fetch(`${ORIGIN}/machines/connect`, {
      headers: { upgrade: "websocket", authorization: `Bearer ${polled.credential}`, "x-edgehost-servers": "everything" },
    });
    const ws = response.webSocket;
    if (!ws) throw new Error(`no WebSocket: ${response.status} ${await response.text()}`);
    ws.accept();
    return new PlayedMachine(machine.id, ws, upstream, user);
  }

  /** From now on requests wait unanswered until release(). */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = undefined;
    for (const frame of waiting) void this.forward(frame);
  }

  async remove(): Promise<void> {
    this.ws.close(1000, "done");
    await SELF.fetch(`${ORIGIN}/api/machines/${this.id}`, { method: "DELETE", headers: authHeaders(this.user) });
  }

  private send(frame: ToWorker): void {
    this.ws.send(JSON.stringify(frame));
  }

  private async forward(req: Extract<ToBridge, { t: "req" }>): Promise<void> {
    try {
      const response = await fetch(this.upstream, { method: req.method, headers: req.headers, body: req.body });
      const headers = [...response.headers].filter(([name]) => ["content-type", "mcp-session-id"].includes(name));
      this.send({ t: "head", id: req.id, status: response.status, headers });
      const reader = response.body?.getReader();
      let seq = 0;
      if (reader) {
        this.streams.set(req.id, reader);
        const decoder = new TextDecoder();
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          this.send({ t: "data", id: req.id, chunk: decoder.decode(read.value, { stream: true }), seq: seq++ });
        }
        this.streams.delete(req.id);
      }
      this.send({ t: "end", id: req.id, chunks: seq });
    } catch (error) {
      if (this.ws.readyState === WebSocket.OPEN) this.send({ t: "fail", id: req.id, message: String(error).slice(0, 400) });
    }
  }
}
