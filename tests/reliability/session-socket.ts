// A Node WebSocket client for a chat session on the running stack: await messages
// by predicate (never by time) and run whole turns.
import WebSocket from "ws";
import type { ServerMessage } from "../../src/session/protocol";

export interface SessionSocket {
  received: ServerMessage[];
  send(message: unknown): void;
  next(predicate: (m: ServerMessage) => boolean, from?: number, timeoutMs?: number): Promise<ServerMessage>;
  /** Sends a message and resolves at its turn_end with what arrived meanwhile. */
  turn(text: string): Promise<{ end: Extract<ServerMessage, { type: "turn_end" }>; messages: ServerMessage[] }>;
  close(): void;
}

export async function openSession(baseUrl: string, id: string): Promise<SessionSocket> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/sessions/${encodeURIComponent(id)}/ws`);
  const received: ServerMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on("message", (data) => {
    received.push(JSON.parse(String(data)) as ServerMessage);
    for (const check of [...waiters]) check();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const next: SessionSocket["next"] = (predicate, from = 0, timeoutMs = 20_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = received.slice(from).find(predicate);
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(received.slice(from)).slice(0, 2000)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  await next((m) => m.type === "history");
  return {
    received,
    send: (message) => ws.send(JSON.stringify(message)),
    next,
    turn: async (text) => {
      const from = received.length;
      ws.send(JSON.stringify({ type: "message", text }));
      const end = (await next((m) => m.type === "turn_end", from)) as Extract<ServerMessage, { type: "turn_end" }>;
      return { end, messages: received.slice(from) };
    },
    close: () => ws.close(1000),
  };
}
