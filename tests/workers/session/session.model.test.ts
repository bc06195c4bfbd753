// A session's model inside workerd: the real ChatSession keeps the choice made with
// `set_model` (and its settings) in its storage, tells every socket, runs the next turn
// on it, records on each answer which model gave it, and refuses a model the deployment
// does not offer. The deployment here offers Gemini (the fake) with one model.
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const GEMINI = { provider: "gemini", model: "gemini-2.5-flash" };

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

describe("a session's model", () => {
  it("starts on the deployment's default, keeps a chosen model's settings, and says which model gave each answer", async () => {
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    expect(await socket.next((m) => m.type === "model")).toEqual({ type: "model", choice: GEMINI });
    const other = await openSession(id);
    const from = other.received.indexOf(await other.next((m) => m.type === "model")) + 1;
    socket.send({ type: "set_model", ...GEMINI, temperature: 0.3, maxOutputTokens: 77 });
    const told = await other.next((m) => m.type === "model", from);
    expect(told).toEqual({ type: "model", choice: { ...GEMINI, temperature: 0.3, maxOutputTokens: 77 } });

    await script(llm, KEY, [reply.text("Hello.")]);
    const sent = socket.received.length;
    socket.send({ type: "message", text: "hi" });
    const { messages } = await socket.turnEnd(sent);
    const answer = messages.find((m) => m.type === "entry" && m.entry.kind === "assistant");
    expect(answer).toMatchObject({ entry: { text: "Hello.", model: "gemini/gemini-2.5-flash" } });
    const [request] = await requests(llm, KEY);
    expect(request?.body.generationConfig).toMatchObject({ temperature: 0.3, maxOutputTokens: 77 });
    socket.close();
    other.close();

    // Kept with the session: a new socket is told the stored choice, and the replay keeps the model of each answer.
    const again = await openSession(id);
    expect(await again.next((m) => m.type === "model")).toEqual({ type: "model", choice: { ...GEMINI, temperature: 0.3, maxOutputTokens: 77 } });
    expect(again.history().find((e) => e.kind === "assistant")).toMatchObject({ model: "gemini/gemini-2.5-flash" });
    again.close();
  });

  it("runs a model in prompted tool mode when its settings say so", async () => {
    const socket = await openSession(crypto.randomUUID());
    const from = socket.received.length;
    socket.send({ type: "set_model", ...GEMINI, toolMode: "prompted" });
    await socket.next((m) => m.type === "model" && m.choice?.toolMode === "prompted", from);
    await script(llm, KEY, [reply.text("No tools needed.")]);
    const sent = socket.received.length;
    socket.send({ type: "message", text: "hi" });
    await socket.turnEnd(sent);
    const [request] = await requests(llm, KEY);
    expect(request?.body.tools).toBeUndefined();
    expect(JSON.stringify(request?.body.systemInstruction)).toContain("## Tools");
    socket.close();
  });

  it("refuses a model the deployment does not offer, and settings out of range, keeping the model it had", async () => {
    const socket = await openSession(crypto.randomUUID());
    let from = socket.received.length;
    socket.send({ type: "set_model", provider: "gemini", model: "gemini-9-ultra" });
    expect(await socket.next((m) => m.type === "error", from)).toEqual({
      type: "error",
      code: "model_not_available",
      message: 'gemini/gemini-9-ultra cannot be chosen: Gemini offers no model "gemini-9-ultra"',
    });
    from = socket.received.length;
    socket.send({ type: "set_model", provider: "elsewhere", model: "m" });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({
      code: "model_not_available",
      message: expect.stringContaining('no model provider "elsewhere"'),
    });
    from = socket.received.length;
    socket.send({ type: "set_model", ...GEMINI, temperature: 5 });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "bad_message", message: expect.stringContaining("temperature") });
    socket.close();
    const again = await openSession(socket.sessionId);
    expect(await again.next((m) => m.type === "model")).toEqual({ type: "model", choice: GEMINI });
    again.close();
  });

  it("lists the models a user may choose at GET /api/models", async () => {
    const response = await workerFetch("/api/models");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      models: [{ ...GEMINI, providerLabel: "Gemini", source: "deployment" }],
      defaultModel: GEMINI,
      problems: [],
    });
  });
});
