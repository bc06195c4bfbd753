// Faults on the model side, against the whole product: the fake Gemini answering
// 429 with retry-after, 500 again and again, a stream cut in the middle of a
// function call, an empty candidate; and (through the OpenAI-compatible path,
// the only one that can carry them) function-call arguments that are not JSON.
// Each test checks what the user sees, that the stored history is whole, and
// that the next turn works.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { startFakeLlm, type FakeLlm } from "../fixtures/fake-gemini";
import { reply, requests, script, uniqueKey, type FakeReply } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import type { Message, SessionClient } from "../fixtures/session-client";
import { openSession } from "../fixtures/session-client-node";
import { createSession, expectWholeHistory, functionName } from "../fixtures/session-http";
import { faultCase } from "./record";

let gemini: Stack;
let openai: Stack;
let openaiLlm: FakeLlm;
const openaiKey = uniqueKey("faults-openai");

beforeAll(async () => {
  openaiLlm = await startFakeLlm();
  const [g, o] = await Promise.allSettled([
    startStack(),
    startStack({ vars: { LLM_PROVIDER: "openai", OPENAI_BASE_URL: `${openaiLlm.url}/v1`, OPENAI_MODEL: "fake", OPENAI_API_KEY: openaiKey } }),
  ]);
  // Whichever started is stopped by afterAll, even if the other failed.
  if (g.status === "fulfilled") gemini = g.value;
  if (o.status === "fulfilled") openai = o.value;
  for (const result of [g, o]) if (result.status === "rejected") throw result.reason;
});
afterAll(async () => {
  await Promise.all([gemini?.stop(), openai?.stop(), openaiLlm?.stop()]);
});
beforeEach(async () => {
  for (const [url, key] of [
    [gemini.llm.url, gemini.llmKey],
    [openaiLlm.url, openaiKey],
  ] as const) {
    await fetch(`${url}/__script/${encodeURIComponent(key)}`, { method: "DELETE" });
  }
});

/** A model endpoint and the stack that talks to it. */
interface Model {
  stack: Stack;
  url: string;
  key: string;
}
const geminiModel = (): Model => ({ stack: gemini, url: gemini.llm.url, key: gemini.llmKey });

async function newSession(model: Model): Promise<SessionClient> {
  const socket = await openSession(model.stack.url, await createSession(model.stack.url));
  onTestFinished(() => socket.close());
  return socket;
}

/** Scripts `replies`, sends a message and resolves at turn_end with what came meanwhile and how long it took. */
async function turn(model: Model, socket: SessionClient, replies: FakeReply[], text = "hello") {
  await script(model.url, model.key, replies);
  const started = performance.now();
  const mark = socket.say(text);
  const { end, messages } = await socket.turnEnd(mark);
  return { end, messages, ms: Math.round(performance.now() - started), entries: socket.entries(mark) };
}

async function nextTurnWorks(model: Model, socket: SessionClient): Promise<void> {
  const { end, entries } = await turn(model, socket, [reply.text("All good now.")], "and now?");
  expect(end.reason).toBe("complete");
  expect(entries.at(-1)).toMatchObject({ kind: "assistant", text: "All good now." });
}

const errors = (messages: { type: string }[]) => messages.filter((m): m is Message<"error"> => m.type === "error");
const statuses = (messages: { type: string }[]) => messages.filter((m): m is Message<"status"> => m.type === "status");

describe("faults: the model", () => {
  it(
    "429 with retry-after, then success",
    faultCase("Gemini 429 with retry-after", "429 + `retry-after: 1`, then a normal answer", async () => {
      const model = geminiModel();
      const socket = await newSession(model);
      const before = (await requests(model.url, model.key)).length;
      const { end, messages, ms, entries } = await turn(model, socket, [reply.error(429, { "retry-after": "1" }), reply.text("Here after the wait.")]);
      expect(end.reason).toBe("complete");
      expect(errors(messages)).toEqual([]);
      expect(entries.at(-1)?.text).toBe("Here after the wait.");
      expect((await requests(model.url, model.key)).length - before).toBe(2);
      // The session waited what the server asked, not its own 10 ms backoff.
      expect(ms).toBeGreaterThanOrEqual(1_000);
      await nextTurnWorks(model, socket);
      await expectWholeHistory(model.stack.url, socket.sessionId, ["user", "assistant", "user", "assistant"], socket.entries());
      return `answered after ${ms} ms (retry-after 1 s honoured), 2 model requests, no error shown, next turn ok`;
    }),
  );

  it(
    "500 three times: a clear error",
    faultCase("Gemini 500 ×3", "HTTP 500 on every attempt", async () => {
      const model = geminiModel();
      const socket = await newSession(model);
      const before = (await requests(model.url, model.key)).length;
      const { end, messages } = await turn(model, socket, [reply.error(500), reply.error(500), reply.error(500)]);
      expect(end.reason).toBe("error");
      const [error] = errors(messages);
      expect(error).toMatchObject({ code: "llm", turnId: end.turnId });
      expect(error?.message).toMatch(/Gemini API error 500/);
      expect(error?.message).toMatch(/gave up after 3 attempts/);
      expect((await requests(model.url, model.key)).length - before).toBe(3);
      await nextTurnWorks(model, socket);
      const entries = await expectWholeHistory(model.stack.url, socket.sessionId, ["user", "error", "user", "assistant"], socket.entries());
      expect(entries[1]?.text).toBe(error?.message);
      return `"${error?.message}" (error entry + turn_end error), 3 requests, next turn ok`;
    }),
  );

  it(
    "a stream cut mid-function-call before anything was shown",
    faultCase("Gemini stream cut in a function call (nothing shown yet)", "the connection drops half-way through the function-call chunk; retry", async () => {
      const model = geminiModel();
      const socket = await newSession(model);
      const fn = await functionName(model.stack.url, socket.sessionId, "filesystem.list_directory");
      const call = reply.call(fn, { path: model.stack.fsRoot });
      const { end, messages } = await turn(model, socket, [reply.cut(0, call), reply.text(call), reply.text("You have notes.txt.")]);
      expect(end.reason).toBe("complete");
      expect(errors(messages)).toEqual([]);
      // The half-received call never ran; the retried one ran once.
      expect(statuses(messages).filter((s) => s.state === "complete")).toHaveLength(1);
      await nextTurnWorks(model, socket);
      await expectWholeHistory(
        model.stack.url,
        socket.sessionId,
        ["user", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"],
        socket.entries(),
      );
      return "retried transparently: the call ran once, turn complete, next turn ok";
    }),
  );

  it(
    "a stream cut mid-function-call after text was shown",
    faultCase(
      "Gemini stream cut in a function call (text shown)",
      "text streamed, then the connection drops half-way through the function-call chunk",
      async () => {
        const model = geminiModel();
        const socket = await newSession(model);
        const fn = await functionName(model.stack.url, socket.sessionId, "filesystem.list_directory");
        const { end, messages } = await turn(model, socket, [reply.cut(1, "Let me look. ", reply.call(fn, { path: model.stack.fsRoot }))]);
        expect(end.reason).toBe("error");
        const [error] = errors(messages);
        expect(error?.code).toBe("llm");
        expect(error?.message).toMatch(/interrupted/);
        // A call from a broken stream must never run.
        expect(statuses(messages)).toEqual([]);
        await nextTurnWorks(model, socket);
        const entries = await expectWholeHistory(model.stack.url, socket.sessionId, ["user", "assistant", "error", "user", "assistant"], socket.entries());
        expect(entries[1]).toMatchObject({ text: "Let me look. ", partial: true });
        return `partial text kept, "${error?.message}", no tool run, next turn ok`;
      },
    ),
  );

  it(
    "function-call arguments that are not JSON (OpenAI-compatible)",
    faultCase("Invalid function-call JSON (OpenAI path)", "the model's tool_call arguments are cut-off JSON; it then calls again correctly", async () => {
      const model: Model = { stack: openai, url: openaiLlm.url, key: openaiKey };
      const socket = await newSession(model);
      const fn = await functionName(openai.url, socket.sessionId, "filesystem.list_directory");
      const broken = reply.text(reply.call(fn, `{"path": "${openai.fsRoot}`, { id: "call_broken", pieces: 2 }));
      const fixed = reply.callReply(fn, { path: openai.fsRoot }, { id: "call_fixed" });
      const before = (await requests(model.url, model.key)).length;
      const { end, messages } = await turn(model, socket, [broken, fixed, reply.text("You have notes.txt.")]);
      expect(end.reason).toBe("complete");
      const [first, second] = statuses(messages).filter((s) => s.state === "complete" || s.state === "error");
      expect(first?.state).toBe("error");
      expect(first?.error).toMatch(/not valid JSON/);
      expect(second?.state).toBe("complete");
      // The model saw its own broken arguments next to the error, so it could correct them.
      const retry = JSON.stringify((await requests(model.url, model.key))[before + 1]?.body.messages);
      expect(retry).toContain("not valid JSON");
      expect(retry).toContain(JSON.stringify(`{"path": "${openai.fsRoot}`).slice(1, -1));
      await nextTurnWorks(model, socket);
      const kinds = ["user", "assistant", "tool_call", "tool_result", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"] as const;
      await expectWholeHistory(openai.url, socket.sessionId, [...kinds], socket.entries());
      return `tool error "${first?.error?.slice(0, 60)}…" fed back; the corrected call ran; turn complete; next turn ok`;
    }),
  );

  it(
    "an OpenAI-compatible server that numbers tool calls per response",
    faultCase("Tool-call ids reused across responses (OpenAI path)", "two model responses each call their tool `call_fake_0`", async () => {
      const model: Model = { stack: openai, url: openaiLlm.url, key: openaiKey };
      const socket = await newSession(model);
      const fn = await functionName(openai.url, socket.sessionId, "filesystem.list_directory");
      const call = reply.callReply(fn, { path: openai.fsRoot });
      const { end, messages } = await turn(model, socket, [call, call, reply.text("Listed twice.")]);
      expect(end.reason).toBe("complete");
      const done = statuses(messages).filter((s) => s.state === "complete");
      expect(done).toHaveLength(2);
      // Each call keeps its own card on the page (cards, results and approvals are keyed by callId).
      expect.soft(new Set(done.map((s) => s.callId)).size, "distinct callIds for two calls").toBe(2);
      await nextTurnWorks(model, socket);
      const kinds = ["user", "assistant", "tool_call", "tool_result", "assistant", "tool_call", "tool_result", "assistant", "user", "assistant"] as const;
      await expectWholeHistory(openai.url, socket.sessionId, [...kinds], socket.entries());
      return `2 calls, callIds ${done.map((s) => s.callId).join(" / ")}, turn complete, next turn ok`;
    }),
  );

  it(
    "an empty candidate",
    faultCase("Gemini empty candidate", "a candidate with a finish reason and no content (STOP, then SAFETY)", async () => {
      const model = geminiModel();
      const socket = await newSession(model);
      const stop = await turn(model, socket, [reply.empty("STOP")]);
      expect(stop.end.reason).toBe("complete");
      expect(stop.entries.at(-1)).toMatchObject({ kind: "notice", text: "The model returned an empty answer." });
      // A blocked answer says why, rather than looking like an empty one.
      const safety = await turn(model, socket, [reply.empty("SAFETY")]);
      expect(safety.end.reason).not.toBe("error");
      expect.soft(safety.entries.at(-1)?.text, "notice for an answer blocked with finishReason SAFETY").toMatch(/SAFETY|safety|blocked/);
      await nextTurnWorks(model, socket);
      await expectWholeHistory(model.stack.url, socket.sessionId, ["user", "notice", "user", "notice", "user", "assistant"], socket.entries());
      return `notice "${stop.entries.at(-1)?.text}", turn complete; SAFETY shown as "${safety.entries.at(-1)?.text}"; next turn ok`;
    }),
  );
});
