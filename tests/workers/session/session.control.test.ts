// Approval, cancel, sampling and elicitation: the user's side of a turn.
import { beforeEach, describe, expect, inject, it } from "vitest";
import { hangsClosed, reply, requests, script } from "../../fixtures/fake-llm-script";
import { openSession, workerFetch } from "../worker-fetch";
import { frameOf, type Message, type SessionClient } from "../../fixtures/session-client";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const is = frameOf;

function send(socket: SessionClient, text: string): number {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return from;
}

describe("tool approval", () => {
  it("asks before a tool not in alwaysAllow runs, and runs it once approved", async () => {
    await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "info-1" }), reply.text("ok")]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "info please");
    const request = await socket.next(is("approval_request"), from);
    // The call goes by an id of the session's own, not the model's "info-1".
    expect(request).toMatchObject({
      kind: "tool",
      callId: expect.not.stringMatching(/^info-1$/),
      server: "filesystem",
      tool: "get_file_info",
      arguments: { path: `${root}/notes.txt` },
    });
    // Nothing ran yet.
    expect(socket.received.slice(from).some((m) => m.type === "status" && m.state === "complete")).toBe(false);
    socket.send({ type: "approval", callId: request.callId, approved: true });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(messages.find((m) => m.type === "status" && m.state === "complete")).toMatchObject({ callId: request.callId });
    expect(messages).toContainEqual({ type: "approval_resolved", callId: request.callId, approved: true });
    socket.close();
  });

  it("tells the model when the user denies a call", async () => {
    await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "deny-1" }), reply.text("understood")]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "info please");
    const request = await socket.next(is("approval_request"), from);
    socket.send({ type: "approval", callId: request.callId, approved: false });
    const { messages } = await socket.turnEnd(from);
    expect(messages.find((m) => m.type === "entry" && m.entry.kind === "tool_result")).toMatchObject({ entry: { error: "The user denied this tool call." } });
    expect(JSON.stringify((await requests(llm, KEY))[1]?.body.contents)).toContain("The user denied this tool call.");
    socket.close();
  });

  it("remembers 'always allow' for the rest of the session", async () => {
    await script(llm, KEY, [
      reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "always-1" }),
      reply.text("first"),
      reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "always-2" }),
      reply.text("second"),
    ]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "one");
    const request = await socket.next(is("approval_request"), from);
    socket.send({ type: "approval", callId: request.callId, approved: true, remember: true });
    await socket.turnEnd(from);
    const again = send(socket, "two");
    const { end, messages } = await socket.turnEnd(again);
    expect(end.reason).toBe("complete");
    expect(messages.some((m) => m.type === "approval_request")).toBe(false);
    socket.close();
  });

  it("lists the always-allowed tools to every tab, and a revoke makes the tool ask again", async () => {
    await script(llm, KEY, [
      reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "revoke-1" }),
      reply.text("first"),
      reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "revoke-2" }),
      reply.text("second"),
    ]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    // A new session remembers nothing.
    expect(await socket.next(is("always_allowed"), 0)).toEqual({ type: "always_allowed", tools: [] });
    const from = send(socket, "one");
    const request = await socket.next(is("approval_request"), from);
    socket.send({ type: "approval", callId: request.callId, approved: true, remember: true });
    expect(await socket.next(is("always_allowed"), from)).toEqual({ type: "always_allowed", tools: ["filesystem.get_file_info"] });
    await socket.turnEnd(from);

    // A second tab learns the list on connect, and hears the revoke the first tab sends.
    const other = await openSession(id);
    expect(await other.next(is("always_allowed"), 0)).toEqual({ type: "always_allowed", tools: ["filesystem.get_file_info"] });
    const revokedAt = other.received.length;
    socket.send({ type: "revoke_always", tool: "filesystem.get_file_info" });
    expect(await other.next(is("always_allowed"), revokedAt)).toEqual({ type: "always_allowed", tools: [] });

    // Asked again, and answered from the other tab this time.
    const again = send(socket, "two");
    const asked = await socket.next(is("approval_request"), again);
    socket.send({ type: "approval", callId: asked.callId, approved: true });
    expect((await socket.turnEnd(again)).end.reason).toBe("complete");

    // Revoking what is not remembered says so, and the session goes on.
    const twice = socket.received.length;
    socket.send({ type: "revoke_always", tool: "filesystem.get_file_info" });
    expect(await socket.next(is("error"), twice)).toMatchObject({ code: "not_always_allowed", message: expect.stringContaining("filesystem.get_file_info") });
    socket.close();
    other.close();
  });
});

describe("one approval per call", () => {
  it("asks for each of two calls that share one model id, and runs only the one approved", async () => {
    const target = `${root}/dup-write.txt`;
    await script(llm, KEY, [
      reply.text(
        reply.call("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "dup" }),
        reply.call("filesystem__write_file", { path: target, content: "x" }, { id: "dup" }),
      ),
      reply.text("done"),
    ]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "list, then write");
    const list = await socket.next((m) => is("approval_request")(m) && m.tool === "get_file_info", from);
    const write = await socket.next((m) => is("approval_request")(m) && m.tool === "write_file", from);
    if (list.type !== "approval_request" || write.type !== "approval_request") throw new Error("not approval requests");
    expect(list.callId).not.toBe(write.callId);
    expect(write.arguments).toEqual({ path: target, content: "x" });
    // Allowing the first settles that call alone: the write still waits for its own answer.
    socket.send({ type: "approval", callId: list.callId, approved: true });
    await socket.next((m) => m.type === "status" && m.state === "complete" && m.callId === list.callId, from);
    expect(socket.received.slice(from).some((m) => m.type === "status" && m.callId === write.callId && m.state !== "processing")).toBe(false);
    socket.send({ type: "approval", callId: write.callId, approved: false });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    const results = messages.flatMap((m) => (m.type === "entry" && m.entry.kind === "tool_result" ? [m.entry] : []));
    expect(results.map((r) => [r.callId, r.tool, r.error ?? "ok"])).toEqual([
      [list.callId, "get_file_info", "ok"],
      [write.callId, "write_file", "The user denied this tool call."],
    ]);
    // The model gets its own id back on both answers.
    const sent = JSON.stringify((await requests(llm, KEY))[1]?.body.contents);
    expect(sent.match(/"functionResponse":\{"name":"filesystem__(get_file_info|write_file)","id":"dup"/g)).toHaveLength(2);
    socket.close();
  });

  it("keeps a model id reused in a later turn apart in the history", async () => {
    const call = () => reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "same" });
    await script(llm, KEY, [call(), reply.text("one"), call(), reply.text("two")]);
    const socket = await openSession(crypto.randomUUID());
    for (const text of ["first", "second"]) {
      const from = send(socket, text);
      const request = await socket.next(is("approval_request"), from);
      socket.send({ type: "approval", callId: request.callId, approved: true });
      expect((await socket.turnEnd(from)).end.reason).toBe("complete");
    }
    const history = (await (await workerFetch(`/sessions/${socket.sessionId}/history`)).json()) as { entries: { kind: string; callId?: string }[] };
    const callIds = history.entries.filter((e) => e.kind === "tool_call").map((e) => e.callId);
    expect(callIds).toHaveLength(2);
    expect(new Set(callIds).size).toBe(2);
    expect(history.entries.filter((e) => e.kind === "tool_result").map((e) => e.callId)).toEqual(callIds);
    socket.close();
  });
});

describe("cancel", () => {
  it("stops the model stream mid-answer and keeps the partial text", async () => {
    await script(llm, KEY, [reply.hang("I was saying ")]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "talk");
    const start = await socket.next(is("turn_start"), from);
    await socket.next(is("text"), from);
    socket.send({ type: "cancel", turnId: start.turnId });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("cancelled");
    expect(messages.find((m) => m.type === "entry" && m.entry.kind === "assistant")).toMatchObject({ entry: { text: "I was saying ", partial: true } });
    await hangsClosed(llm, KEY);
    socket.close();
  });

  it("ends a turn whose model sends nothing for LLM_IDLE_TIMEOUT_MS, saying so, and the next turn works", async () => {
    await script(llm, KEY, [reply.hang("Let me think"), reply.text("Back.")]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "think hard");
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("error");
    expect(messages).toContainEqual(
      expect.objectContaining({ type: "error", code: "llm_idle", message: expect.stringContaining("The model sent nothing for 2 s") }),
    );
    expect(messages.find((m) => m.type === "entry" && m.entry.kind === "assistant")).toMatchObject({ entry: { text: "Let me think", partial: true } });
    await hangsClosed(llm, KEY);
    const next = send(socket, "again");
    expect((await socket.turnEnd(next)).end.reason).toBe("complete");
    socket.close();
  });

  it("stops a running tool call and tells the server", async () => {
    await script(llm, KEY, [reply.callReply("everything__trigger-long-running-operation", { duration: 30, steps: 30 }, { id: "long-1" })]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "run the long thing");
    await socket.next((m) => m.type === "status" && m.state === "progress", from);
    socket.send({ type: "cancel" });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("cancelled");
    expect(messages.find((m) => m.type === "entry" && m.entry.kind === "tool_result")).toMatchObject({ entry: { error: "Cancelled by the user." } });
    socket.close();
  });
});

describe("requests from MCP servers", () => {
  it("answers a sampling request with the model after the user approves", async () => {
    await script(llm, KEY, [
      reply.callReply("everything__trigger-sampling-request", { prompt: "say hi", maxTokens: 20 }, { id: "s-1" }),
      reply.text("sampled hello"),
      reply.text("The server got its answer."),
    ]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "trigger sampling");
    const approval = await socket.next((m) => m.type === "approval_request" && m.kind === "sampling", from);
    expect(approval).toMatchObject({ server: "everything", prompt: expect.stringContaining("say hi") });
    socket.send({ type: "approval", callId: (approval as Message<"approval_request">).callId, approved: true });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(JSON.stringify(messages.find((m) => m.type === "status" && m.state === "complete"))).toContain("sampled hello");
    socket.close();
  });

  it("forwards an elicitation to the user and the answer back to the server", async () => {
    await script(llm, KEY, [reply.callReply("everything__trigger-elicitation-request", {}, { id: "e-1" }), reply.text("Thanks.")]);
    const socket = await openSession(crypto.randomUUID());
    const from = send(socket, "ask me");
    const request = await socket.next(is("elicitation_request"), from);
    expect(request).toMatchObject({ server: "everything", message: "Please provide inputs for the following fields:", schema: { type: "object" } });
    socket.send({ type: "elicitation_response", requestId: request.requestId, action: "accept", content: { name: "Ada Lovelace", check: true } });
    const { messages } = await socket.turnEnd(from);
    expect(messages).toContainEqual({ type: "elicitation_resolved", requestId: request.requestId });
    expect(JSON.stringify(messages.find((m) => m.type === "status" && m.state === "complete"))).toContain("Ada Lovelace");
    socket.close();
  });
});
