// The per-user cap on running MCP tasks (TASKS_PER_USER, 5 here), in workerd: the real
// ChatSession objects of one user take slots in their real UserAccount
// (src/users/task-slots.ts) before they hold a task, so the cap is hit across two sessions
// of that user, another user is not counted, and a finished task frees its slot. The model
// is the fake Gemini; the server is the task bridge (global-setup.ts taskBridgeUrl) in front
// of tests/fixtures/task-server.mjs, whose slow_compute tasks run until release({label}),
// which the test calls on a connection of its own. The account's own rules (renewal drops
// what a session no longer holds, a slot lapses at its lease or its task's deadline) are
// driven with explicit clocks on the account's RPC.
import { env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { McpHost } from "../../../src/mcp/host";
import { workerTransports } from "../../../src/mcp/transports";
import type { ServerMessage } from "../../../src/protocol/messages";
import { parseMcpConfig } from "../../../src/shared/mcp-config/config";
import { userAccount } from "../../../src/users/account";
import { TASK_SLOT_LEASE_MS, TaskSlots } from "../../../src/users/task-slots";
import type { StoredUserServer } from "../../../src/users/user-servers";
import { reply, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const bindings = env as unknown as Env;
const SERVER = "capped";
const WAIT_MS = 30_000;

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

function taskServer(): StoredUserServer {
  return {
    name: SERVER,
    url: `${inject("taskBridgeUrl")}/servers/tasks/mcp`,
    type: "http",
    headers: { Authorization: `Bearer ${inject("taskBridgeToken")}` },
    alwaysAllow: ["slow_compute"],
    excludeTools: [],
    disabled: false,
  };
}

async function sessionOf(user: TestUser): Promise<SessionClient> {
  const socket = await openSession(crypto.randomUUID(), user);
  socket.send({ type: "set_servers", enabled: [SERVER] });
  return socket;
}

/** Calls one of the task server's plain tools on a connection of the test's own. */
async function taskTool(tool: string, args: Record<string, unknown>): Promise<string> {
  const config = parseMcpConfig(JSON.stringify({ servers: { tasks: { type: "http", url: "${URL}", headers: { Authorization: "Bearer ${TOKEN}" } } } }), {
    env: { URL: `${inject("taskBridgeUrl")}/servers/tasks/mcp`, TOKEN: inject("taskBridgeToken") },
  });
  const host = new McpHost({ transports: workerTransports() });
  try {
    expect(await host.connect(config)).toEqual({ ready: ["tasks"], failed: [] });
    const result = await host.callTool(`tasks.${tool}`, args);
    return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  } finally {
    await host.close();
  }
}

const computes = (label: string, n: number) => Array.from({ length: n }, (_, i) => reply.call(`${SERVER}__slow_compute`, { label }, { id: `${label}-${i}` }));
const working = (m: ServerMessage) => m.type === "task" && m.status === "working";
const outcomes = (messages: ServerMessage[], state: "complete" | "error") =>
  messages.flatMap((m) => (m.type === "status" && m.state === state ? [m.state === "error" ? (m.error ?? "") : JSON.stringify(m.result)] : []));

/** Resolves once the socket has seen `n` frames matching `predicate` after `from`. */
async function count(socket: SessionClient, predicate: (m: ServerMessage) => boolean, n: number, from: number): Promise<void> {
  await socket.next(() => socket.received.slice(from).filter(predicate).length >= n, from, WAIT_MS);
}

describe("the per-user cap on running tasks", () => {
  it("counts a user's tasks across their sessions: the sixth fails with task_limit, another user is not counted, an ended task frees its slot", async () => {
    const frank = userAccount(bindings, "token:frank");
    const erin = userAccount(bindings, "token:erin");
    expect(await frank.putServer(taskServer(), true)).toEqual({ ok: true });
    expect(await erin.putServer(taskServer(), true)).toEqual({ ok: true });
    const label = crypto.randomUUID().slice(0, 8);
    try {
      await script(llm, KEY, [
        reply.text(...computes(`${label}-a`, 3)),
        reply.text(...computes(`${label}-b`, 3)),
        reply.callReply(`${SERVER}__slow_compute`, { label: `${label}-erin`, seconds: 0 }, { id: "erin-1" }),
        reply.text("Erin's ran."),
        reply.text("A's three ran."),
        reply.callReply(`${SERVER}__slow_compute`, { label: `${label}-freed`, seconds: 0 }, { id: "freed-1" }),
        reply.text("The freed slot ran."),
        reply.text("B's two ran."),
      ]);
      // Frank's first session holds three running tasks.
      const a = await sessionOf("frank");
      const fromA = a.say("three tasks");
      await count(a, working, 3, fromA);
      expect(await taskTool("waiting", { label: `${label}-a` })).toBe("3");

      // His second session may hold two more: the third is cancelled with task_limit.
      const b = await sessionOf("frank");
      const fromB = b.say("three more");
      const refused = (await b.next((m) => m.type === "status" && m.state === "error", fromB, WAIT_MS)) as Extract<ServerMessage, { type: "status" }>;
      expect(refused.error).toContain("5 running tasks across your sessions");
      await count(b, working, 2, fromB);
      expect(await frank.runningTasks()).toBe(5);

      // Erin's tasks are hers: her session's task runs and completes.
      const c = await sessionOf("erin");
      const fromC = c.say("one task");
      const erinTurn = await c.turnEnd(fromC, WAIT_MS);
      expect(outcomes(erinTurn.messages, "complete")).toEqual([expect.stringContaining(`done ${label}-erin`)]);
      expect(outcomes(erinTurn.messages, "error")).toEqual([]);
      expect(await erin.runningTasks()).toBe(0);

      // A's three end: their slots are free, so A's next task runs although B still holds two.
      expect(await taskTool("release", { label: `${label}-a` })).toBe("released 3");
      const aTurn = await a.turnEnd(fromA, WAIT_MS);
      expect(outcomes(aTurn.messages, "complete")).toHaveLength(3);
      expect(await frank.runningTasks()).toBe(2);
      const again = a.say("one more");
      const freedTurn = await a.turnEnd(again, WAIT_MS);
      expect(outcomes(freedTurn.messages, "complete")).toEqual([expect.stringContaining(`done ${label}-freed`)]);
      expect(outcomes(freedTurn.messages, "error")).toEqual([]);

      // The fixture's list still has the refused (cancelled) task: releasing it does nothing.
      expect(await taskTool("release", { label: `${label}-b` })).toBe("released 3");
      const bTurn = await b.turnEnd(fromB, WAIT_MS);
      expect(outcomes(bTurn.messages, "complete")).toHaveLength(2);
      expect(await frank.runningTasks()).toBe(0);
      for (const socket of [a, b, c]) socket.close();
    } finally {
      await userAccount(bindings, "token:frank").deleteServer(SERVER);
      await userAccount(bindings, "token:erin").deleteServer(SERVER);
    }
  });

  it("keeps only the slots a session still holds when it renews, and lets a slot lapse at its lease or its task's deadline", async () => {
    const account = userAccount(bindings, `token:slots-${crypto.randomUUID()}`);
    const t0 = 1_000_000;
    const slot = (session: string, callId: string, deadlineAt = t0 + 24 * 3_600_000) => ({
      session,
      callId,
      tool: "s.t",
      taskId: `task-${callId}`,
      deadlineAt,
    });
    expect(await account.reserveTaskSlot(slot("s1", "c1"), 2, t0)).toEqual({ ok: true });
    expect(await account.reserveTaskSlot(slot("s2", "c2", t0 + 1_000), 2, t0)).toEqual({ ok: true });
    expect(await account.reserveTaskSlot(slot("s1", "c3"), 2, t0)).toEqual({ ok: false, limit: 2 });
    // Taking a slot the session already holds is not a new task.
    expect(await account.reserveTaskSlot(slot("s1", "c1"), 2, t0)).toEqual({ ok: true });
    // s2's task passed its deadline: its slot is gone.
    expect(await account.runningTasks(t0 + 1_000)).toBe(1);
    expect(await account.reserveTaskSlot(slot("s1", "c3"), 2, t0 + 1_000)).toEqual({ ok: true });
    // s1 restarted and holds only c3 (c1's row was lost): the renewal drops c1.
    await account.renewTaskSlots("s1", [{ callId: "c3", deadlineAt: t0 + 24 * 3_600_000 }], t0 + 2_000);
    expect(await account.runningTasks(t0 + 2_000)).toBe(1);
    // A session that never renews again: its slot lapses at the lease.
    expect(await account.runningTasks(t0 + 2_000 + TASK_SLOT_LEASE_MS - 1)).toBe(1);
    expect(await account.runningTasks(t0 + 2_000 + TASK_SLOT_LEASE_MS)).toBe(0);
    // Bad input is refused by name (in the object: a throw across RPC is also reported as uncaught there).
    await runInDurableObject(account, async (_instance, state) => {
      expect(() => new TaskSlots(state.storage.sql).reserve({ ...slot("s1", "c4"), callId: "" }, 2, t0)).toThrow(/task slot: callId: /);
    });
  });
});
