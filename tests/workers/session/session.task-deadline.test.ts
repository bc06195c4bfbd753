// A held task past its deadline (src/session/tasks/session-tasks.ts), in workerd: the real
// SessionTasks on a session object's SQLite (TaskRows) and a real McpHost connected to the
// task bridge (global-setup.ts taskBridgeUrl, MCP 2026 with the Tasks extension). The alarm's
// poll is called directly, with a deadline already passed: the task is cancelled at its
// server and the call waiting on it fails with task_deadline; its row is gone.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { McpHost } from "../../../src/mcp/host";
import { getTask, type StartedTask } from "../../../src/mcp/tasks";
import { workerTransports } from "../../../src/mcp/transports";
import type { ServerMessage } from "../../../src/protocol/messages";
import { parseMcpConfig } from "../../../src/shared/mcp-config/config";
import { silentLogger } from "../../../src/shared/logger";
import { SessionTasks } from "../../../src/session/tasks/session-tasks";
import { TaskRows } from "../../../src/session/tasks/task-rows";

const bindings = env as unknown as Env;
const sessions = () => bindings.CHAT_SESSION as unknown as DurableObjectNamespace;

describe("a held task's deadline", () => {
  it("cancels the task at its server when the deadline passed, and the waiting call fails with task_deadline", async () => {
    const config = parseMcpConfig(JSON.stringify({ servers: { tasks: { type: "http", url: "${URL}", headers: { Authorization: "Bearer ${TOKEN}" } } } }), {
      env: { URL: `${inject("taskBridgeUrl")}/servers/tasks/mcp`, TOKEN: inject("taskBridgeToken") },
    });
    const stub = sessions().get(sessions().idFromName(crypto.randomUUID()));
    // Made inside the object: workerd refuses I/O of one request's objects from another.
    await runInDurableObject(stub, async (_instance, state) => {
      const host = new McpHost({ transports: workerTransports() });
      try {
        expect(await host.connect(config)).toEqual({ ready: ["tasks"], failed: [] });
        const frames: ServerMessage[] = [];
        let handed: () => void = () => undefined;
        const held = new Promise<void>((resolve) => (handed = resolve));
        const rows = new TaskRows(state.storage.sql);
        const tasks = new SessionTasks({
          rows,
          host: async () => host,
          wakeAt: () => undefined,
          broadcast: (message) => {
            frames.push(message);
            // The task's first card: its row is written.
            if (message.type === "task") handed();
          },
          followUp: async () => true,
          questions: {},
          log: silentLogger,
          limits: { deadlineMs: 0 },
        });
        let started: StartedTask | undefined;
        const waiting = host.callTool(
          "tasks.slow_compute",
          { label: "overdue" },
          {
            onTask: (task) => {
              started = task;
              return tasks.hold(task, { callId: "call-overdue", turnId: null });
            },
          },
        );
        const failed = expect(waiting).rejects.toMatchObject({ code: "task_deadline" });
        await held;
        expect(rows.all()).toHaveLength(1);
        await tasks.poll();
        await failed;
        expect(rows.all()).toEqual([]);
        expect(frames.at(-1)).toMatchObject({ type: "task", callId: "call-overdue", status: "cancelled" });
        const client = await host.connectionFor("tasks")!.ready();
        expect((await getTask(client, started!.taskId)).status).toBe("cancelled");
      } finally {
        await host.close();
      }
    });
  });
});
