// A conversation as a tree (regenerate, edit, switch), on the real ChatSession with the
// fake Gemini: a new version of a turn branches off beside the old one, the page and the
// model see only the current path, every open socket follows a change, and sessions
// from before branches read as one line.
import { env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ServerMessage } from "../../../src/protocol/messages";
import type { ChatSession } from "../../../src/session/ChatSession";
import { HistoryStore } from "../../../src/session/history";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

type History = Extract<ServerMessage, { type: "history" }>;

async function send(socket: SessionClient, frame: Record<string, unknown>) {
  const from = socket.received.length;
  socket.send(frame);
  return socket.turnEnd(from);
}

/** The next full history a socket gets after `from`. */
const historyAfter = (socket: SessionClient, from: number) => socket.next((m): m is History => m.type === "history", from);

/** User and assistant texts of a history, in order. */
const said = (history: History) => history.entries.flatMap((e) => (e.kind === "user" || e.kind === "assistant" ? [`${e.kind}: ${e.text}`] : []));

/** The texts of the model request's conversation. */
async function modelSaw(index: number): Promise<string[]> {
  const contents = (await requests(llm, KEY))[index]?.body.contents as { role: string; parts: { text?: string }[] }[];
  return contents.map((c) => `${c.role}: ${c.parts.map((p) => p.text ?? "").join("")}`);
}

describe("branches", () => {
  it("regenerates an answer beside the old one; the model sees only the new path; switching back shows the old one on every socket", async () => {
    await script(llm, KEY, [reply.text("Paris."), reply.text("Blue."), reply.text("Azure, really.")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    await send(socket, { type: "message", text: "capital of France?" });
    const second = await send(socket, { type: "message", text: "colour of the sky?" });
    const other = await openSession(id);

    const fromOther = other.received.length;
    const regenerated = await send(socket, { type: "regenerate", turnId: second.end.turnId });
    expect(regenerated.end.reason).toBe("complete");
    const newTurn = regenerated.end.turnId;
    // The other tab got the new path when the turn began.
    const shown = await historyAfter(other, fromOther);
    expect(said(shown)).toEqual(["user: capital of France?", "assistant: Paris."]);
    expect(shown.branches).toEqual({ [newTurn]: { index: 2, count: 2, siblings: [second.end.turnId, newTurn] } });
    // The model was asked the question once, without the old answer.
    expect(await modelSaw(2)).toEqual(["user: capital of France?", "model: Paris.", "user: colour of the sky?"]);

    const fromSwitch = other.received.length;
    socket.send({ type: "switch_branch", turnId: second.end.turnId });
    const back = await historyAfter(other, fromSwitch);
    expect(said(back)).toEqual(["user: capital of France?", "assistant: Paris.", "user: colour of the sky?", "assistant: Blue."]);
    expect(back.branches?.[second.end.turnId]).toMatchObject({ index: 1, count: 2 });
    // A reload shows the path chosen last.
    const reloaded = await openSession(id);
    const replay = reloaded.received.find((m): m is History => m.type === "history");
    expect(replay && said(replay)).toEqual(said(back));
    for (const s of [socket, other, reloaded]) s.close();
  });

  it("sends an edited message as a new version of its turn, and a message after a switch continues that branch", async () => {
    await script(llm, KEY, [reply.text("One."), reply.text("Two."), reply.text("Three.")]);
    const socket = await openSession(crypto.randomUUID());
    const original = await send(socket, { type: "message", text: "count to one" });
    const edited = await send(socket, { type: "edit", turnId: original.end.turnId, text: "count to two" });
    expect(await modelSaw(1)).toEqual(["user: count to two"]);
    const from = socket.received.length;
    socket.send({ type: "switch_branch", turnId: original.end.turnId });
    await historyAfter(socket, from);
    await send(socket, { type: "message", text: "and three" });
    expect(await modelSaw(2)).toEqual(["user: count to one", "model: One.", "user: and three"]);
    const fromBack = socket.received.length;
    socket.send({ type: "switch_branch", turnId: edited.end.turnId });
    expect(said(await historyAfter(socket, fromBack))).toEqual(["user: count to two", "assistant: Two."]);
    socket.close();
  });

  it("retries a failed turn without retyping: a regenerate of it", async () => {
    await script(llm, KEY, [reply.error(400, {}, { error: { code: 400, message: "bad", status: "INVALID_ARGUMENT" } }), reply.text("Now it works.")]);
    const socket = await openSession(crypto.randomUUID());
    const failed = await send(socket, { type: "message", text: "try this" });
    expect(failed.end.reason).toBe("error");
    const retried = await send(socket, { type: "regenerate", turnId: failed.end.turnId });
    expect(retried.end.reason).toBe("complete");
    expect(await modelSaw(1)).toEqual(["user: try this"]);
    socket.close();
  });

  it("refuses an unknown turn and a switch while a turn runs, and the session goes on", async () => {
    await script(llm, KEY, [reply.hang("thinking"), reply.text("Fine.")]);
    const socket = await openSession(crypto.randomUUID());
    let from = socket.received.length;
    socket.send({ type: "regenerate", turnId: "no-such-turn" });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "unknown_turn" });
    from = socket.received.length;
    socket.send({ type: "message", text: "hang on" });
    const started = await socket.next((m): m is Extract<ServerMessage, { type: "turn_start" }> => m.type === "turn_start", from);
    // The model is answering (its request took the hanging reply).
    await socket.next((m) => m.type === "text", from);
    socket.send({ type: "switch_branch", turnId: started.turnId });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "turn_in_progress" });
    socket.send({ type: "cancel" });
    await socket.turnEnd(from);
    const after = await send(socket, { type: "message", text: "still here?" });
    expect(after.messages.filter((m) => m.type === "error")).toEqual([]);
    expect(after.end.reason).toBe("complete");
    socket.close();
  });

  it("reads a session stored before branches as one line of turns", async () => {
    await script(llm, KEY, [reply.text("C.")]);
    const id = crypto.randomUUID();
    // As an older version left it: entries of two turns, and no tree.
    const sessions = (env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
    await runInDurableObject(sessions.get(sessions.idFromName(id)), (_instance: ChatSession, state) => {
      const store = new HistoryStore(state.storage.sql);
      for (const [turnId, question, answer] of [
        ["turn-a", "a", "A."],
        ["turn-b", "b", "B."],
      ] as const) {
        store.append({ turnId, kind: "user", text: question });
        store.append({ turnId, kind: "assistant", text: answer });
      }
      state.storage.sql.exec("DELETE FROM turn_tree");
    });
    const socket = await openSession(id);
    const replay = socket.received.find((m): m is History => m.type === "history");
    expect(replay && said(replay)).toEqual(["user: a", "assistant: A.", "user: b", "assistant: B."]);
    await send(socket, { type: "message", text: "c" });
    expect(await modelSaw(0)).toEqual(["user: a", "model: A.", "user: b", "model: B.", "user: c"]);
    socket.close();
  });
});
