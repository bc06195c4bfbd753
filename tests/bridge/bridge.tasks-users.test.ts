// A shared 2025 child runs every user's tasks in one task store (stdio has one session):
// through the bridge each user's 2025 session sees, names and hears of its own tasks only.
// Real bridge, real v1-SDK clients, the task fixture child (tests/fixtures/task-server.mjs).
import { join } from "node:path";
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema, ListTasksResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { envelope, modernHeaders, postRaw } from "../fixtures/bridge-modern";
import { repoRoot } from "../fixtures/servers";

const taskServer = { command: process.execPath, args: [join(repoRoot, "tests", "fixtures", "task-server.mjs")] };
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge({ tasks: taskServer }, ["--no-watch"]);
});
afterAll(async () => {
  await bridge?.stop();
});

describe("bridge, a shared child's tasks per user (2025 sessions)", () => {
  it("lists, gets, reads and cancels a task only for the user who created it", async () => {
    const ada = (await connectClient(bridge, "tasks", {}, "ada")).client;
    const bob = (await connectClient(bridge, "tasks", {}, "bob")).client;
    try {
      const created = await ada.request(
        { method: "tools/call", params: { name: "slow_compute", arguments: { label: "ada-only" }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      const taskId = created.task.taskId;
      // One made by ada over 2026 too: the child knows it by its own id, which no one is shown.
      const modern = await postRaw(
        bridge,
        "tasks",
        {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "slow_compute", arguments: { label: "ada-modern" }, _meta: envelope({ extensions: { "io.modelcontextprotocol/tasks": {} } }) },
        },
        { ...modernHeaders("tools/call", "slow_compute"), "x-edgehost-user": "ada" },
      );
      expect(modern.json.result.resultType).toBe("task");

      const adaList = await ada.request({ method: "tasks/list", params: {} }, ListTasksResultSchema);
      expect(adaList.tasks.map((t) => t.taskId)).toContain(taskId);
      expect(adaList.tasks).toHaveLength(2);
      expect((await bob.request({ method: "tasks/list", params: {} }, ListTasksResultSchema)).tasks).toEqual([]);

      for (const method of ["tasks/get", "tasks/result", "tasks/cancel"] as const) {
        await expect(bob.request({ method, params: { taskId } }, GetTaskResultSchema)).rejects.toThrow(/Task not found/);
      }
      expect((await ada.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema)).status).toBe("working");

      await ada.callTool({ name: "release", arguments: { label: "ada-only" } });
      await ada.callTool({ name: "release", arguments: { label: "ada-modern" } });
      const done = await ada.request({ method: "tasks/result", params: { taskId } }, CallToolResultSchema);
      expect(done.content).toEqual([{ type: "text", text: "done ada-only" }]);
    } finally {
      await ada.close();
      await bob.close();
    }
  });
});
