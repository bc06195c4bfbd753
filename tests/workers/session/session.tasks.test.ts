// Durable tasks (MCP Tasks extension) in the real ChatSession in workerd, with the fake
// Gemini and a real bridge in front of tests/fixtures/task-server.mjs (global-setup.ts
// taskBridgeUrl: a bridge of its own, so the session speaks 2026 with it). The model's call
// of a task tool becomes a task the session's Durable Object holds in SQLite and polls on its
// alarm: the turn waits for it like a long call; after a restart (the page closed, the object
// evicted) a follow-up turn tells the model the result; Cancel stops it at the server; the
// owner holds at most 5 running tasks (across sessions: session.task-cap.test.ts). The tasks end on the task server's own timer
// (`seconds`) and the tests await frames, never a timer of their own.
import { abortAllDurableObjects, env } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it, vi } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import type { StoredUserServer } from "../../../src/users/user-servers";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { frameOf, type SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const bindings = env as unknown as Env;
const SERVER = "tasks26";
const WAIT_MS = 30_000;

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** dave's own server: the task bridge's "tasks", its task tools needing no approval, for the length of `body`. */
async function withTaskServer(body: () => Promise<void>): Promise<void> {
  const account = userAccount(bindings, "token:dave");
  const server: StoredUserServer = {
    name: SERVER,
    url: `${inject("taskBridgeUrl")}/servers/tasks/mcp`,
    type: "http",
    headers: { Authorization: `Bearer ${inject("taskBridgeToken")}` },
    alwaysAllow: ["slow_compute", "failing_job", "confirm_delete"],
    excludeTools: [],
    disabled: false,
  };
  expect(await account.putServer(server, true)).toEqual({ ok: true });
  try {
    await body();
  } finally {
    // A stub of its own: a restart in `body` (abortAllDurableObjects) ends the one above.
    await userAccount(bindings, "token:dave").deleteServer(SERVER);
  }
}

async function sessionWithTasks(id = crypto.randomUUID()): Promise<SessionClient> {
  const socket = await openSession(id, "dave");
  socket.send({ type: "set_servers", enabled: [SERVER] });
  return socket;
}

const taskFrame = (callId: string | undefined, status: string) => (m: { type: string }) =>
  frameOf("task")(m as never) && (m as { status?: string }).status === status && (callId === undefined || (m as { callId?: string }).callId === callId);

/** The text of the user entries the model was sent in its newest request. */
async function lastUserTexts(): Promise<string> {
  const all = await requests(llm, KEY);
  return JSON.stringify(all.at(-1)?.body?.contents ?? []);
}

describe("a session's durable tasks", () => {
  it("holds a task tool's call as a task: the card shows it working, and the turn gets the result when it completes", async () => {
    await withTaskServer(async () => {
      await script(llm, KEY, [reply.callReply(`${SERVER}__slow_compute`, { label: "waited", seconds: 2 }, { id: "t-1" }), reply.text("It is done.")]);
      const socket = await sessionWithTasks();
      const from = socket.say("compute it");
      const working = await socket.next(taskFrame(undefined, "working"), from, WAIT_MS);
      expect(working).toMatchObject({ type: "task", server: SERVER, tool: "slow_compute", status: "working" });
      const { end, messages } = await socket.turnEnd(from, WAIT_MS);
      expect(end.reason).toBe("complete");
      expect(messages).toContainEqual(expect.objectContaining({ type: "task", status: "completed" }));
      expect(JSON.stringify(messages.filter((m) => m.type === "status" && m.state === "complete"))).toContain("done waited");
      expect(await lastUserTexts()).toContain("done waited");
      socket.close();
    });
  });

  it("after the object restarts mid-wait, a follow-up turn tells the model the task's result", async () => {
    await withTaskServer(async () => {
      await script(llm, KEY, [
        reply.callReply(`${SERVER}__slow_compute`, { label: "after-restart", seconds: 3 }, { id: "t-2" }),
        reply.text("Your computation finished: done after-restart."),
      ]);
      const id = crypto.randomUUID();
      const first = await sessionWithTasks(id);
      const from = first.say("compute it later");
      await first.next(taskFrame(undefined, "working"), from, WAIT_MS);
      first.close();
      await abortAllDurableObjects();

      // The page opens again: the held task's card comes with it, and the alarm's polls go on.
      const again = await openSession(id, "dave");
      const cardOrEnd = await again.next((m) => m.type === "task", 0, WAIT_MS);
      expect(cardOrEnd).toMatchObject({ type: "task", tool: "slow_compute" });
      const start = await again.next((m) => m.type === "turn_start", 0, WAIT_MS);
      const { end } = await again.turnEnd(again.received.indexOf(start), WAIT_MS);
      expect(end.reason).toBe("complete");
      const history = again.received.filter((m) => m.type === "entry").map((m) => (m as { entry: { kind: string; text?: string } }).entry);
      // The model's message, marked as the task's note (the page shows it so, not as the person's words).
      expect(history).toContainEqual(
        expect.objectContaining({
          kind: "user",
          text: expect.stringContaining("done after-restart"),
          task: { server: SERVER, tool: "slow_compute", callId: expect.any(String), outcome: "completed" },
        }),
      );
      expect(history).toContainEqual(expect.objectContaining({ kind: "assistant", text: "Your computation finished: done after-restart." }));
      expect(await lastUserTexts()).toContain("done after-restart");
      // Search finds the model's answer, never the follow-up as the person's words.
      const hits = async () => {
        const res = await workerFetch(`/api/search?q=${encodeURIComponent("after-restart")}`, {}, "dave");
        const { results } = (await res.json()) as { results: { sessionId: string; hits: { kind: string }[] }[] };
        return results.find((r) => r.sessionId === id)?.hits.map((h) => h.kind) ?? [];
      };
      await vi.waitFor(async () => expect(await hits()).toContain("assistant"), { timeout: 10_000, interval: 200 });
      expect(await hits()).not.toContain("user");
      again.close();
    });
  });

  it("cancels a running task from the page (tasks/cancel), and the model hears the call was cancelled", async () => {
    await withTaskServer(async () => {
      await script(llm, KEY, [reply.callReply(`${SERVER}__slow_compute`, { label: "never" }, { id: "t-3" }), reply.text("Cancelled, as you asked.")]);
      const id = crypto.randomUUID();
      const socket = await sessionWithTasks(id);
      const from = socket.say("compute forever");
      const working = (await socket.next(taskFrame(undefined, "working"), from, WAIT_MS)) as { callId: string };
      // Another user gets no socket on dave's session, so no way to send a Cancel; the task runs on.
      await expect(openSession(id, "bob")).rejects.toThrow();
      expect(socket.received.slice(from).filter(taskFrame(working.callId, "cancelled"))).toEqual([]);
      socket.send({ type: "cancel_task", callId: working.callId });
      const { end, messages } = await socket.turnEnd(from, WAIT_MS);
      expect(end.reason).toBe("complete");
      expect(messages).toContainEqual(expect.objectContaining({ type: "task", callId: working.callId, status: "cancelled" }));
      expect(messages).toContainEqual(expect.objectContaining({ type: "status", callId: working.callId, state: "error", error: "Cancelled by the user." }));
      // Ended: a second Cancel finds no task.
      const mark = socket.received.length;
      socket.send({ type: "cancel_task", callId: working.callId });
      expect(await socket.next(frameOf("error"), mark)).toMatchObject({ code: "unknown_task" });
      socket.close();
    });
  });

  it("asks the person a task's question (input_required) like a server's elicitation, and the task goes on with the answer", async () => {
    await withTaskServer(async () => {
      await script(llm, KEY, [reply.callReply(`${SERVER}__confirm_delete`, {}, { id: "t-4" }), reply.text("The file is deleted.")]);
      const socket = await sessionWithTasks();
      const from = socket.say("delete it, after asking me");
      const question = await socket.next(frameOf("elicitation_request"), from, WAIT_MS);
      expect(question).toMatchObject({ server: SERVER, message: "Delete the file?" });
      expect(socket.received.slice(from)).toContainEqual(expect.objectContaining({ type: "task", status: "input_required" }));
      socket.send({ type: "elicitation_response", requestId: question.requestId, action: "accept", content: { confirm: true } });
      const { end, messages } = await socket.turnEnd(from, WAIT_MS);
      expect(end.reason).toBe("complete");
      expect(JSON.stringify(messages.filter((m) => m.type === "status" && m.state === "complete"))).toContain("deleted");
      socket.close();
    });
  });

  it("holds at most 5 running tasks for its owner: a sixth is cancelled with task_limit", async () => {
    await withTaskServer(async () => {
      const calls = [1, 2, 3, 4, 5, 6].map((n) => reply.call(`${SERVER}__slow_compute`, { label: `cap-${n}`, seconds: 2 }, { id: `c-${n}` }));
      await script(llm, KEY, [reply.text(...calls), reply.text("Five ran.")]);
      const socket = await sessionWithTasks();
      const from = socket.say("six at once");
      const { end, messages } = await socket.turnEnd(from, WAIT_MS);
      expect(end.reason).toBe("complete");
      const outcomes = messages.filter((m) => m.type === "status" && (m.state === "complete" || m.state === "error"));
      expect(outcomes.filter((m) => m.type === "status" && m.state === "complete")).toHaveLength(5);
      expect(outcomes.filter((m) => m.type === "status" && m.state === "error").map((m) => (m as { error?: string }).error)).toEqual([
        expect.stringContaining("already have 5 running tasks across your sessions"),
      ]);
      socket.close();
    });
  });
});
