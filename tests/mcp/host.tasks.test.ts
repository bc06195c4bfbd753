// McpHost and the Tasks extension (io.modelcontextprotocol/tasks, SEP-2663), against the
// real bridge in front of tests/fixtures/task-server.mjs (a v1 stdio server whose tools run
// as tasks; the bridge serves the extension to 2026 clients). The host declares the
// extension, so the bridge makes a call of a task-capable tool a task: the host hands the
// CreateTaskResult to the caller's onTask, or waits for it itself, polling tasks/get.
// Each poll and each release is awaited on the bridge's answer, never on a timer.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { McpHost } from "../../src/mcp/host";
import { cancelTask, getTask, TERMINAL_TASK_STATUSES, type StartedTask, type TaskState } from "../../src/mcp/tasks";
import { bridgedHost, heldAt2025 } from "../fixtures/host";
import { repoRoot, stdioServer } from "../fixtures/servers";

const taskServer = stdioServer("tasks", [join(repoRoot, "tests", "fixtures", "task-server.mjs")]);

async function connected(era: "modern" | "legacy"): Promise<McpHost> {
  // The fixture's default negotiates (the bridge speaks 2026, as with a session); heldAt2025 keeps the 2025 handshake.
  const { host, config } = await bridgedHost([taskServer], era === "modern" ? {} : heldAt2025);
  expect(await host.connect(config)).toEqual({ ready: ["tasks"], failed: [] });
  return host;
}

/** The task a call started, as the caller's onTask gets it, without waiting for its end. */
function startTask(host: McpHost, tool: string, args: Record<string, unknown>): Promise<StartedTask> {
  return new Promise((resolve, reject) => {
    host
      .callTool(tool, args, {
        onTask: async (task) => {
          resolve(task);
          return { content: [] };
        },
      })
      .then(() => reject(new Error(`${tool} did not become a task`)), reject);
  });
}

async function untilEnded(host: McpHost, taskId: string): Promise<TaskState> {
  const client = await host.connectionFor("tasks")!.ready();
  for (;;) {
    const state = await getTask(client, taskId);
    if (TERMINAL_TASK_STATUSES.has(state.status)) return state;
  }
}

describe("McpHost, tool calls that become tasks", () => {
  it("offers a task-only tool on a 2026 connection to a server with the extension, and not on 2025", async () => {
    const modern = await connected("modern");
    expect(modern.servers()[0]?.protocol).toBe("2026-07-28");
    expect(modern.tools().map((t) => t.qualifiedName)).toContain("tasks.failing_job");
    await modern.close();
    const legacy = await connected("legacy");
    expect(legacy.tools().map((t) => t.qualifiedName)).not.toContain("tasks.failing_job");
    expect(legacy.tools().map((t) => t.qualifiedName)).toContain("tasks.slow_compute");
  });

  it("hands a task to onTask with the server's id and poll interval, and its result comes with tasks/get", async () => {
    const host = await connected("modern");
    const task = await startTask(host, "tasks.slow_compute", { label: "handed" });
    expect(task).toMatchObject({ server: "tasks", tool: "slow_compute", status: "working", pollIntervalMs: 100 });
    const client = await host.connectionFor("tasks")!.ready();
    expect((await getTask(client, task.taskId)).status).toBe("working");
    expect((await host.callTool("tasks.release", { label: "handed" })).content).toEqual([{ type: "text", text: "released 1" }]);
    expect(await untilEnded(host, task.taskId)).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "done handed" }] } });
  });

  it("waits for a task itself when the caller gives no onTask: the result, and a task's tool error as isError", async () => {
    const host = await connected("modern");
    expect((await host.callTool("tasks.slow_compute", { label: "waited", seconds: 0 })).content).toEqual([{ type: "text", text: "done waited" }]);
    const failed = await host.callTool("tasks.failing_job", {});
    expect(failed).toMatchObject({ isError: true, content: [{ type: "text", text: "the job failed" }] });
  });

  it("cancels a running task with tasks/cancel", async () => {
    const host = await connected("modern");
    const client = await host.connectionFor("tasks")!.ready();
    const task = await startTask(host, "tasks.slow_compute", { label: "stopped" });
    await cancelTask(client, task.taskId);
    expect((await untilEnded(host, task.taskId)).status).toBe("cancelled");
  });
});
