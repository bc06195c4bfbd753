// A turn's opening (its question stored, `turn_start`) is written after the model request
// is on its way (src/session/deferred-opening.ts, issue 37): in real workerd with the real
// ChatSession, its owner's account and the fake Gemini. The question is still stored and
// sent before any answer, while the model thinks; a refused turn and a turn dropped before
// it opened store and send nothing; a cancel before the first chunk keeps the question.
import { env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { tokenUserId } from "../../../src/identity/tokens";
import { GeminiProvider } from "../../../src/llm/gemini";
import type { ServerMessage } from "../../../src/protocol/messages";
import type { ChatSession } from "../../../src/session/ChatSession";
import { DeferredOpening } from "../../../src/session/deferred-opening";
import { HistoryStore } from "../../../src/session/history";
import type { SessionParts } from "../../../src/session/session-parts";
import { userAccount } from "../../../src/users/account";
import { bucketKey } from "../../../src/users/spend-ledger";
import { reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";
import { openSession, workerFetch } from "../worker-fetch";
import type { TestUser } from "../test-users";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const bindings = env as unknown as Env;

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** A turn's frames in order (a chat's other news, `servers` or `schedules`, arrives whenever it settles). */
const TURN_FRAMES = new Set(["entry", "turn_start", "text", "status", "turn_end", "error"]);
const kinds = (messages: ServerMessage[]) =>
  messages.filter((m) => TURN_FRAMES.has(m.type)).map((m) => (m.type === "entry" ? `entry:${m.entry.kind}` : m.type));

const stored = async (id: string, user: TestUser = "alice") =>
  ((await (await workerFetch(`/sessions/${id}/history`, {}, user)).json()) as { entries: { kind: string; text?: string }[] }).entries.map((e) => [
    e.kind,
    e.text,
  ]);

describe("a turn's opening after the model request", () => {
  it("issues the model's fetch first, then writes the opening, before the first chunk arrives", async () => {
    const key = uniqueKey("deferred-opening");
    // The model thinks before its first chunk (a real one does): the opening must not wait for it.
    await script(llm, key, [reply.stream(["Hi"], { firstChunkMs: 300 })]);
    const order: string[] = [];
    const opening = new DeferredOpening(() => order.push("opened"));
    const provider = new GeminiProvider({
      apiKey: key,
      model: "gemini-test",
      baseUrl: llm,
      fetch: (input, init) => {
        order.push("fetch");
        return fetch(input, init);
      },
    });
    for await (const event of opening.afterRequest(provider).stream({ system: "", messages: [{ role: "user", text: "hi" }], tools: [] })) {
      if (event.type === "text") order.push("chunk");
    }
    expect(order).toEqual(["fetch", "opened", "chunk"]);
  });

  it("stores and sends the question while the model is still thinking, then its answer in order", async () => {
    await script(llm, KEY, [reply.stream(["Thought ", "about it."], { firstChunkMs: 1000 })]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const from = socket.say("think first");
    await socket.next((m) => m.type === "turn_start", from);
    // The opening did not wait for the model's first chunk: no text yet, and the question is stored.
    expect(socket.received.slice(from).some((m) => m.type === "text")).toBe(false);
    expect(await stored(id)).toEqual([["user", "think first"]]);
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(kinds(messages)).toEqual(["entry:user", "turn_start", "text", "text", "entry:assistant", "turn_end"]);
    expect(await stored(id)).toEqual([
      ["user", "think first"],
      ["assistant", "Thought about it."],
    ]);
    socket.close();
  });

  it("stores nothing, sends nothing and asks no model when the owner's rate refuses the turn", async () => {
    const user: TestUser = "dave";
    const account = userAccount(bindings, tokenUserId(user));
    await runInDurableObject(account, (_instance, state) => state.storage.put(bucketKey("turn"), { tokens: 0, at: Date.now() + 3_600_000 }));
    try {
      await script(llm, KEY, [reply.text("never")]);
      const id = crypto.randomUUID();
      const socket = await openSession(id, user);
      const from = socket.say("too soon");
      expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "rate_limited" });
      expect(kinds(socket.received.slice(from))).toEqual(["error"]);
      expect(await stored(id, user)).toEqual([]);
      expect(await requests(llm, KEY)).toEqual([]);
      socket.close();
    } finally {
      await runInDurableObject(account, (_instance, state) => state.storage.delete(bucketKey("turn")));
    }
  });

  it("stores nothing, sends nothing and asks no model when the daily budget refuses the turn", async () => {
    // As identity/spend.test.ts leaves carol: her day's tokens used up.
    const account = userAccount(bindings, tokenUserId("carol"));
    await runInDurableObject(account, (_instance, state) => state.storage.delete([bucketKey("turn"), bucketKey("call")]));
    await account.addUsage(Number(bindings.DAILY_TOKEN_BUDGET));
    await script(llm, KEY, [reply.text("never")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id, "carol");
    const from = socket.say("over budget");
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "budget_exhausted" });
    expect(kinds(socket.received.slice(from))).toEqual(["error"]);
    expect(await stored(id, "carol")).toEqual([]);
    expect(await requests(llm, KEY)).toEqual([]);
    socket.close();
  });

  it("stores and sends nothing of a turn dropped (its chat deleted) before it opened", async () => {
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    // Connected first: connections opened inside runInDurableObject's call would end with that call.
    await socket.next((m) => m.type === "servers" && m.servers.length > 0 && m.servers.every((s) => s.state === "ready"));
    // Whether the dropped turn got as far as asking depends on how far it ran before the drop: a reply that never ends either way.
    await script(llm, KEY, [reply.hang()]);
    const from = socket.received.length;
    const sessions = bindings.CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
    const left = await runInDurableObject(sessions.get(sessions.idFromName(id)), async (instance: ChatSession, state) => {
      // The session's own runner, as a message frame starts it; dropped as Delete my data does, right after admission.
      const { turns } = (instance as unknown as { parts: SessionParts }).parts;
      expect(await turns.start("doomed question")).toBeUndefined();
      expect(turns.running).toBeDefined();
      await turns.drop("session deleted");
      expect(turns.running).toBeUndefined();
      const store = new HistoryStore(state.storage.sql);
      return { entries: store.count(), path: store.tree.path(), running: store.getSetting("runningTurn") };
    });
    expect(left).toEqual({ entries: 0, path: [], running: undefined });
    // Frames go out in order: the answer to a frame sent now comes after anything the dropped turn sent, and it sent nothing.
    socket.send({ type: "switch_branch", turnId: crypto.randomUUID() });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "unknown_turn" });
    expect(kinds(socket.received.slice(from))).toEqual(["error"]);
    expect(await stored(id)).toEqual([]);
    socket.close();
  });

  it("keeps the question and says Cancelled. when the turn is cancelled before the model's first chunk", async () => {
    await script(llm, KEY, [reply.hang()]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const from = socket.say("never mind");
    const start = await socket.next((m) => m.type === "turn_start", from);
    socket.send({ type: "cancel", turnId: (start as { turnId: string }).turnId });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("cancelled");
    expect(kinds(messages)).toEqual(["entry:user", "turn_start", "entry:notice", "turn_end"]);
    expect(await stored(id)).toEqual([
      ["user", "never mind"],
      ["notice", "Cancelled."],
    ]);
    socket.close();
  });

  it("keeps the question and says Cancelled. when the cancel comes right behind the message", async () => {
    await script(llm, KEY, [reply.hang()]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    // Connected first: connections opened inside runInDurableObject's call would end with that call.
    await socket.next((m) => m.type === "servers" && m.servers.length > 0 && m.servers.every((s) => s.state === "ready"));
    const from = socket.received.length;
    // The two frames, in order, in one event of the object: two frames sent back to back over a socket
    // have been seen to reach the object in the other order here (each is an event of its own).
    const sessions = bindings.CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
    await runInDurableObject(sessions.get(sessions.idFromName(id)), async (instance: ChatSession) => {
      const { turns } = (instance as unknown as { parts: SessionParts }).parts;
      expect(await turns.start("oops")).toBeUndefined();
      turns.cancel();
    });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("cancelled");
    expect(kinds(messages)).toEqual(["entry:user", "turn_start", "entry:notice", "turn_end"]);
    expect(await stored(id)).toEqual([
      ["user", "oops"],
      ["notice", "Cancelled."],
    ]);
    socket.close();
  });
});
