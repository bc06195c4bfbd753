// The tool loop end to end inside workerd: the real ChatSession Durable Object,
// the real bridge with server-filesystem and server-everything behind it, and the
// fake Gemini answering with what each test scripts.
import { openSession, workerFetch } from "../worker-fetch";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { ServerMessage } from "../../../src/protocol/messages";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** Message kinds in order, `servers` updates left out (they arrive whenever connections settle). */
function kinds(messages: ServerMessage[]): string[] {
  return messages
    .filter((m) => m.type !== "servers")
    .map((m) => (m.type === "entry" ? `entry:${m.entry.kind}` : m.type === "status" ? `status:${m.state}` : m.type));
}

const texts = (messages: ServerMessage[]) => messages.flatMap((m) => (m.type === "text" ? [m.delta] : [])).join("");

async function turn(socket: SessionClient, text: string) {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return socket.turnEnd(from);
}

describe("chat turns", () => {
  it("streams a plain answer and stores it", async () => {
    await script(llm, KEY, [reply.stream(["Hel", "lo ", "world"], { usage: { input: 12, output: 3 } })]);
    const socket = await openSession(crypto.randomUUID());
    const { end, messages } = await turn(socket, "hi");
    expect(end).toMatchObject({ reason: "complete", usage: { inputTokens: 12, outputTokens: 3 } });
    expect(kinds(messages)).toEqual(["entry:user", "turn_start", "text", "text", "text", "entry:assistant", "turn_end"]);
    expect(texts(messages)).toBe("Hello world");
    const [request] = await requests(llm, KEY);
    expect(JSON.stringify(request?.body.contents)).toContain('"text":"hi"');
    socket.close();
  });

  it("keeps each turn's token usage with the history, for the replay and the history route", async () => {
    await script(llm, KEY, [reply.stream(["one"], { usage: { input: 40, output: 2 } }), reply.stream(["two"], { usage: { input: 55, output: 3 } })]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const first = (await turn(socket, "a")).end;
    const second = (await turn(socket, "b")).end;
    socket.close();
    const expected = { [first.turnId]: { inputTokens: 40, outputTokens: 2 }, [second.turnId]: { inputTokens: 55, outputTokens: 3 } };
    const again = await openSession(id);
    expect(again.received.find((m) => m.type === "history")).toMatchObject({ usage: expected });
    again.close();
    expect(await (await workerFetch(`/sessions/${id}/history`)).json()).toMatchObject({ usage: expected });
  });

  it("tells the model what each server says about itself, and describes each tool once (in the declarations)", async () => {
    await script(llm, KEY, [reply.text("ok")]);
    const socket = await openSession(crypto.randomUUID());
    await socket.next((m) => m.type === "servers" && m.servers.length > 0 && m.servers.every((s) => s.state === "ready"));
    await turn(socket, "hello");
    const [request] = await requests(llm, KEY);
    const system = JSON.stringify(request?.body.systemInstruction);
    // server-everything sends instructions at initialize; server-filesystem sends none, so it has no guidance.
    expect(system).toContain('Guidance from the \\"everything\\" server');
    expect(system).not.toContain('Guidance from the \\"filesystem\\" server');
    // No second list of the tools in the prompt: the declarations carry them.
    expect(system).not.toContain("filesystem__list_directory");
    const declared = JSON.stringify(request?.body.tools);
    expect(declared).toContain("filesystem__list_directory");
    expect(declared).toContain("everything__");
    socket.close();
  });

  it("keeps Gemini's thought signature for the model and never sends it to a browser", async () => {
    await script(llm, KEY, [
      reply.callReply("filesystem__list_directory", { path: root }, { id: "call-sig", thoughtSignature: "secret-signature" }),
      reply.text("Done."),
    ]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const { end, messages } = await turn(socket, "list");
    expect(end.reason).toBe("complete");
    // The second model request carries it back with its call...
    const [, second] = await requests(llm, KEY);
    expect(JSON.stringify(second?.body.contents)).toContain('"thoughtSignature":"secret-signature"');
    // ...but no frame, replay or history read shows it.
    const assistant = messages.find((m) => m.type === "entry" && m.entry.kind === "assistant" && m.entry.toolCalls);
    expect(assistant).toMatchObject({
      entry: { toolCalls: [{ id: expect.not.stringMatching(/^call-sig$/), name: "filesystem__list_directory", arguments: { path: root } }] },
    });
    const later = await openSession(id);
    const history = await (await workerFetch(`/sessions/${id}/history`)).text();
    for (const seen of [JSON.stringify(messages), JSON.stringify(later.received), history]) expect(seen).not.toContain("secret-signature");
    socket.close();
    later.close();
  });

  it("runs one filesystem tool call through the bridge with the exact message sequence", async () => {
    await script(llm, KEY, [reply.callReply("filesystem__list_directory", { path: root }, { id: "call-1" }), reply.text("You have ", "notes.txt.")]);
    const socket = await openSession(crypto.randomUUID());
    const { end, messages } = await turn(socket, "what files do I have?");
    expect(end.reason).toBe("complete");
    expect(kinds(messages)).toEqual([
      "entry:user",
      "turn_start",
      "entry:assistant",
      "entry:tool_call",
      "status:processing",
      "entry:tool_result",
      "status:complete",
      "text",
      "text",
      "entry:assistant",
      "turn_end",
    ]);
    const complete = messages.find((m) => m.type === "status" && m.state === "complete");
    expect(complete).toMatchObject({ callId: expect.stringMatching(/\.0\.0$/), server: "filesystem", tool: "list_directory" });
    expect(JSON.stringify(complete)).toContain("[FILE] notes.txt");
    const second = (await requests(llm, KEY))[1];
    expect(JSON.stringify(second?.body.contents)).toContain("functionResponse");
    expect(JSON.stringify(second?.body.contents)).toContain("[FILE] notes.txt");
    socket.close();
  });

  it("runs independent calls of one step in parallel", async () => {
    await script(llm, KEY, [
      reply.text(
        reply.call("filesystem__list_directory", { path: root }, { id: "a" }),
        reply.call("filesystem__read_text_file", { path: `${root}/notes.txt` }, { id: "b" }),
      ),
      reply.text("done"),
    ]);
    const socket = await openSession(crypto.randomUUID());
    const { messages } = await turn(socket, "list and read");
    const statuses = messages.flatMap((m) => (m.type === "status" ? [`${m.tool === "list_directory" ? "a" : "b"}:${m.state}`] : []));
    // Both started before either finished.
    expect(statuses.slice(0, 2).sort()).toEqual(["a:processing", "b:processing"]);
    expect(statuses.slice(2).sort()).toEqual(["a:complete", "b:complete"]);
    expect(JSON.stringify(messages)).toContain("remember the milk");
    socket.close();
  });

  it("feeds a tool error back to the model", async () => {
    await script(llm, KEY, [reply.callReply("filesystem__list_directory", { path: "/etc" }), reply.text("I cannot look there.")]);
    const socket = await openSession(crypto.randomUUID());
    const { messages } = await turn(socket, "list /etc");
    const error = messages.find((m) => m.type === "status" && m.state === "error");
    expect(error).toMatchObject({ tool: "list_directory" });
    expect(JSON.stringify(error)).toMatch(/Access denied|outside allowed/i);
    const second = (await requests(llm, KEY))[1];
    expect(JSON.stringify(second?.body.contents)).toMatch(/Access denied|outside allowed/i);
    socket.close();
  });

  it("answers a hallucinated tool name with the real ones, and the model corrects itself", async () => {
    await script(llm, KEY, [
      reply.callReply("filesystem__list_files", { path: root }),
      reply.callReply("filesystem__list_directory", { path: root }),
      reply.text("Fixed."),
    ]);
    const socket = await openSession(crypto.randomUUID());
    const { end, messages } = await turn(socket, "list");
    expect(end.reason).toBe("complete");
    const results = messages.flatMap((m) => (m.type === "entry" && m.entry.kind === "tool_result" ? [m.entry] : []));
    expect(results[0]?.error).toMatch(/^Unknown tool "filesystem__list_files"\. Available tools: .*filesystem__list_directory/);
    expect(results[1]?.error).toBeUndefined();
    expect(JSON.stringify((await requests(llm, KEY))[1]?.body.contents)).toContain('Unknown tool \\"filesystem__list_files\\"');
    socket.close();
  });

  it("retries a 429 and goes on", async () => {
    await script(llm, KEY, [reply.error(429, { "retry-after": "0" }), reply.text("after the wait")]);
    const socket = await openSession(crypto.randomUUID());
    const { end, messages } = await turn(socket, "hello");
    expect(end.reason).toBe("complete");
    expect(texts(messages)).toBe("after the wait");
    expect(await requests(llm, KEY)).toHaveLength(2);
    socket.close();
  });

  it("gives a clear error after three 500s, keeps history consistent, and the next turn works", async () => {
    await script(llm, KEY, [reply.error(500), reply.error(500), reply.error(500), reply.text("back")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const { end, messages } = await turn(socket, "first");
    expect(end.reason).toBe("error");
    const error = messages.find((m) => m.type === "error");
    expect(error).toMatchObject({ code: "llm" });
    expect((error as { message: string }).message).toMatch(/3 attempts/);
    const next = await turn(socket, "second");
    expect(next.end.reason).toBe("complete");
    const history = (await (await workerFetch(`/sessions/${id}/history`)).json()) as { entries: { kind: string; text?: string }[] };
    expect(history.entries.map((e) => e.kind)).toEqual(["user", "error", "user", "assistant"]);
    expect(history.entries[3]?.text).toBe("back");
    socket.close();
  });
});
