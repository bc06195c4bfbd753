// Sockets, frames and history: what every (re)connecting page relies on.
import { abortAllDurableObjects } from "cloudflare:test";
import { openSession, workerFetch } from "../worker-fetch";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { MAX_FRAME_BYTES, type ServerMessage } from "../../../src/protocol/messages";
import { reply, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

async function chat(socket: SessionClient, text: string): Promise<void> {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  await socket.turnEnd(from);
}

describe("session sockets", () => {
  it("opens with connection, the session's model, its always-allowed tools, its schedules, history and servers", async () => {
    const socket = await openSession(crypto.randomUUID());
    expect(socket.received[0]).toMatchObject({ type: "connection", model: { provider: "gemini", model: "gemini-2.5-flash" }, toolApproval: true });
    expect(socket.received[1]).toEqual({ type: "model", choice: { provider: "gemini", model: "gemini-2.5-flash" } });
    expect(socket.received[2]).toEqual({ type: "always_allowed", tools: [] });
    expect(socket.received[3]).toEqual({ type: "schedules", items: [] });
    expect(socket.received[4]).toEqual({ type: "history", entries: [], usage: {}, usageTotal: { inputTokens: 0, outputTokens: 0 } });
    expect(await socket.next((m) => m.type === "servers")).toMatchObject({ servers: [{ name: "filesystem" }, { name: "everything" }] });
    const servers = await socket.next((m) => m.type === "servers" && m.servers.length > 0 && m.servers.every((s) => s.state !== "connecting"));
    expect(servers).toMatchObject({
      servers: expect.arrayContaining([
        expect.objectContaining({ name: "filesystem", state: "ready", toolCount: 14, enabled: true }),
        expect.objectContaining({ name: "everything", state: "ready", enabled: true }),
      ]),
    });
    socket.close();
  });

  it("answers malformed, unknown, oversized and binary frames with an error and keeps the socket open", async () => {
    await script(llm, KEY, [reply.text("still here")]);
    const socket = await openSession(crypto.randomUUID());
    const errors = async (frame: string | ArrayBuffer) => {
      const from = socket.received.length;
      socket.sendRaw(frame);
      return socket.next((m) => m.type === "error", from);
    };
    expect(await errors("{not json")).toEqual({ type: "error", code: "bad_json", message: "frame is not valid JSON" });
    expect(await errors(JSON.stringify({ type: "dance" }))).toMatchObject({
      code: "unknown_type",
      message: expect.stringContaining('unknown message type "dance"'),
    });
    expect(await errors(JSON.stringify({ type: "message", text: "   " }))).toEqual({
      type: "error",
      code: "bad_message",
      message: "message: text: text is empty",
    });
    expect(await errors(JSON.stringify({ type: "approval", callId: "x" }))).toMatchObject({
      code: "bad_message",
      message: expect.stringContaining("approved"),
    });
    expect(await errors("x".repeat(MAX_FRAME_BYTES + 1))).toMatchObject({ code: "frame_too_large" });
    expect(await errors(new Uint8Array([1, 2, 3]).buffer)).toMatchObject({ code: "bad_frame" });
    expect(await errors(JSON.stringify({ type: "approval", callId: "nobody", approved: true }))).toMatchObject({ code: "unknown_approval" });
    await chat(socket, "hello?");
    expect(socket.isClosed).toBe(false);
    expect(socket.received.some((m) => m.type === "entry" && m.entry.kind === "assistant" && m.entry.text === "still here")).toBe(true);
    socket.close();
  });

  it("broadcasts one turn to every socket of the session", async () => {
    await script(llm, KEY, [reply.text("to ", "both")]);
    const id = crypto.randomUUID();
    const a = await openSession(id);
    const b = await openSession(id);
    const fromB = b.received.length;
    await chat(a, "hi all");
    const { messages } = await b.turnEnd(fromB);
    const deltas = (s: typeof messages) => s.flatMap((m) => (m.type === "text" ? [m.delta] : []));
    expect(deltas(messages)).toEqual(["to ", "both"]);
    expect(messages.find((m) => m.type === "entry" && m.entry.kind === "user")).toMatchObject({ entry: { text: "hi all" } });
    a.close();
    b.close();
  });

  it("rejects a second message while a turn runs", async () => {
    await script(llm, KEY, [reply.hang("thinking")]);
    const socket = await openSession(crypto.randomUUID());
    const from = socket.received.length;
    socket.send({ type: "message", text: "first" });
    await socket.next((m) => m.type === "text", from);
    socket.send({ type: "message", text: "second" });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "turn_in_progress" });
    socket.send({ type: "cancel" });
    await socket.turnEnd(from);
    socket.close();
  });

  it("replays history to a reconnecting socket and after the object restarts", async () => {
    await script(llm, KEY, [reply.text("remembered")]);
    const id = crypto.randomUUID();
    const first = await openSession(id);
    await chat(first, "remember this");
    first.close();
    const again = await openSession(id);
    const replay = again.received.find((m) => m.type === "history");
    expect(replay).toMatchObject({
      entries: [
        { kind: "user", text: "remember this" },
        { kind: "assistant", text: "remembered" },
      ],
    });
    again.close();

    await abortAllDurableObjects();
    const afterRestart = await openSession(id);
    expect(afterRestart.received.find((m) => m.type === "history")).toEqual(replay);
    const history = (await (await workerFetch(`/sessions/${id}/history`)).json()) as { entries: unknown[] };
    expect(history.entries).toHaveLength(2);
    afterRestart.close();
  });

  it("marks a turn cut off by a restart as interrupted, keeping what it had streamed, cut short", async () => {
    // The model pauses two seconds after its first delta: what was streamed is saved a second after the answer
    // began (the timer), or at the latest before the next delta goes out (a save that is due).
    await script(llm, KEY, [reply.hangAfterPause(["half an "], 2_000, ["answer"])]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const from = socket.received.length;
    socket.send({ type: "message", text: "long one" });
    await socket.next((m) => m.type === "text" && m.delta === "answer", from);
    await abortAllDurableObjects();
    const back = await openSession(id);
    const entries = back.received.find((m) => m.type === "history");
    // Deltas within a second of the last save may be lost with the process.
    expect(entries).toMatchObject({
      entries: [
        { kind: "user" },
        { kind: "assistant", partial: true, text: expect.stringMatching(/^half an ( ?answer)?$/) },
        { kind: "error", text: expect.stringContaining("interrupted") },
      ],
    });
    back.close();
  });

  it("sends a page that joins mid-answer the text streamed so far, then the rest live", async () => {
    await script(llm, KEY, [reply.hang("Once upon ", "a time")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const from = socket.received.length;
    socket.send({ type: "message", text: "tell me a story" });
    await socket.next((m) => m.type === "text" && m.delta === "a time", from);
    const joined = await openSession(id);
    const caughtUp = await joined.next((m) => m.type === "text");
    expect(caughtUp).toMatchObject({ type: "text", delta: "Once upon a time" });
    // After the page learnt a turn runs.
    const start = joined.received.findIndex((m) => m.type === "turn_start");
    expect(start).toBeGreaterThan(-1);
    expect(joined.received.indexOf(caughtUp as ServerMessage)).toBeGreaterThan(start);
    socket.send({ type: "cancel" });
    const end = await joined.next((m) => m.type === "turn_end");
    expect(end).toMatchObject({ reason: "cancelled" });
    // The cut answer is stored as it was streamed.
    const stored = await joined.next((m) => m.type === "entry" && m.entry.kind === "assistant");
    expect(stored).toMatchObject({ entry: { text: "Once upon a time", partial: true } });
    socket.close();
    joined.close();
  });

  it("deletes a session with its history", async () => {
    await script(llm, KEY, [reply.text("gone soon")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    await chat(socket, "hi");
    expect((await workerFetch(`/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
    const history = (await (await workerFetch(`/sessions/${id}/history`)).json()) as { entries: unknown[] };
    expect(history.entries).toEqual([]);
  });
});
