// A held task's URL-mode question and its sampling request (MCP Tasks extension), in real
// workerd with the real ChatSession: they take the same paths as a call's (session-host.ts
// handlers). The server is the task bridge (global-setup.ts taskBridgeUrl) in front of
// tests/fixtures/task-server.mjs, whose visit_url task asks the person to open a URL and
// whose summarize task asks the client's model; the model is the fake Gemini.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ServerMessage } from "../../../src/protocol/messages";
import { userAccount } from "../../../src/users/account";
import type { StoredUserServer } from "../../../src/users/user-servers";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { frameOf, type SessionClient } from "../../fixtures/session-client";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const bindings = env as unknown as Env;
const SERVER = "askingtasks";
const WAIT_MS = 30_000;

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** dave's own server: the task bridge's "tasks", its asking tools needing no approval, for the length of `body`. */
async function withTaskServer(body: () => Promise<void>): Promise<void> {
  const server: StoredUserServer = {
    name: SERVER,
    url: `${inject("taskBridgeUrl")}/servers/tasks/mcp`,
    type: "http",
    headers: { Authorization: `Bearer ${inject("taskBridgeToken")}` },
    alwaysAllow: ["visit_url", "summarize"],
    excludeTools: [],
    disabled: false,
  };
  expect(await userAccount(bindings, "token:dave").putServer(server, true)).toEqual({ ok: true });
  try {
    await body();
  } finally {
    await userAccount(bindings, "token:dave").deleteServer(SERVER);
  }
}

async function sessionWithTasks(): Promise<SessionClient> {
  const socket = await openSession(crypto.randomUUID(), "dave");
  socket.send({ type: "set_servers", enabled: [SERVER] });
  return socket;
}

const completed = (messages: ServerMessage[]) => JSON.stringify(messages.filter((m) => m.type === "status" && m.state === "complete"));

describe("a held task's questions", () => {
  it("asks a task's URL-mode question with the server and the URL's host; after accept the task goes on and the wait ends", async () => {
    await withTaskServer(async () => {
      const url = "https://connect.example/start?state=t4sk-state";
      await script(llm, KEY, [reply.callReply(`${SERVER}__visit_url`, { url }, { id: "v-1" }), reply.text("You are connected.")]);
      const socket = await sessionWithTasks();
      const from = socket.say("connect me");
      const question = await socket.next(frameOf("elicitation_request"), from, WAIT_MS);
      expect(question).toMatchObject({ server: SERVER, mode: "url", url, host: "connect.example", message: "Open the page to connect." });
      expect(socket.received.slice(from)).toContainEqual(expect.objectContaining({ type: "task", tool: "visit_url", status: "input_required" }));
      socket.send({ type: "elicitation_response", requestId: question.requestId, action: "accept" });
      await socket.next((m) => m.type === "elicitation_waiting" && m.requestId === question.requestId, from, WAIT_MS);
      const { end, messages } = await socket.turnEnd(from, WAIT_MS);
      expect(end.reason).toBe("complete");
      expect(completed(messages)).toContain("visit accept");
      // The task moved on: the page's "waiting for connect.example" closed with it.
      expect(messages).toContainEqual({ type: "elicitation_resolved", requestId: question.requestId });
      socket.close();
    });
  });

  it("declines a task's URL question the person declines, and the task hears it", async () => {
    await withTaskServer(async () => {
      await script(llm, KEY, [reply.callReply(`${SERVER}__visit_url`, { url: "https://connect.example/x" }, { id: "v-2" }), reply.text("Not connected.")]);
      const socket = await sessionWithTasks();
      const from = socket.say("connect me");
      const question = await socket.next(frameOf("elicitation_request"), from, WAIT_MS);
      socket.send({ type: "elicitation_response", requestId: question.requestId, action: "decline" });
      const { messages } = await socket.turnEnd(from, WAIT_MS);
      expect(completed(messages)).toContain("visit decline");
      socket.close();
    });
  });

  it("answers a task's sampling request with the session's model after the person approves it", async () => {
    await withTaskServer(async () => {
      await script(llm, KEY, [
        reply.callReply(`${SERVER}__summarize`, { text: "a very long story" }, { id: "s-1" }),
        reply.stream(["short story"]),
        reply.text("Here is the summary."),
      ]);
      const socket = await sessionWithTasks();
      const from = socket.say("summarize it");
      const approval = await socket.next((m) => m.type === "approval_request" && m.kind === "sampling", from, WAIT_MS);
      expect(approval).toMatchObject({ server: SERVER, prompt: expect.stringContaining("Summarize: a very long story") });
      socket.send({ type: "approval", callId: (approval as { callId: string }).callId, approved: true });
      const { end, messages } = await socket.turnEnd(from, WAIT_MS);
      expect(end.reason).toBe("complete");
      expect(completed(messages)).toContain("summary: short story");
      // The model was asked the server's question (the sampling request), between the turn's two calls.
      const sent = await requests(llm, KEY);
      expect(JSON.stringify(sent[1]?.body?.contents)).toContain("Summarize: a very long story");
      socket.close();
    });
  });
});
