// Tasks through the bridge, with a real 2025 stdio child that runs tool calls as tasks
// (tests/fixtures/task-server.mjs, on the v1 SDK's experimental tasks). A 2026 client
// speaks the Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) in raw POSTs (no
// SDK client speaks it yet): the bridge translates to the child's 2025 task calls, binds
// each task id to its user, and answers an id whose task went with a restarted child as
// an unknown task. A 2025 client (the v1 SDK's) still gets the child's tasks on its session.
import { join } from "node:path";
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { envelope, modernHeaders, postRaw, type RawAnswer } from "../fixtures/bridge-modern";
import { repoRoot } from "../fixtures/servers";

const EXT = "io.modelcontextprotocol/tasks";
const WITH_TASKS = { extensions: { [EXT]: {} } };
const taskServer = { command: process.execPath, args: [join(repoRoot, "tests", "fixtures", "task-server.mjs")] };
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge({ tasks: taskServer }, ["--no-watch", "--restart-backoff", "0"]);
});
afterAll(async () => {
  await bridge?.stop();
});

let nextId = 1;
/** One 2026 request with its envelope and standard headers, as `user`. */
function send(method: string, params: Record<string, unknown>, options: { user?: string; capabilities?: Record<string, unknown>; name?: string } = {}) {
  const name = options.name ?? (typeof params.taskId === "string" ? params.taskId : typeof params.name === "string" ? params.name : undefined);
  const body = { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: envelope(options.capabilities ?? WITH_TASKS) } };
  return postRaw(bridge, "tasks", body, { ...modernHeaders(method, name), ...(options.user === undefined ? {} : { "x-edgehost-user": options.user }) });
}
const result = (answer: RawAnswer) => {
  expect(answer.json.error).toBeUndefined();
  return answer.json.result;
};
const UNKNOWN = { code: -32602, data: { reason: "unknown_task" } };

/** Polls tasks/get (the extension's way) until the task ends; each poll waits on the bridge's answer, not a timer. */
async function untilEnded(taskId: string, user = "ada"): Promise<Record<string, any>> {
  for (;;) {
    const task = result(await send("tasks/get", { taskId }, { user }));
    if (["completed", "failed", "cancelled"].includes(task.status)) return task;
  }
}

describe("bridge, Tasks extension for 2026 clients over a 2025 child", () => {
  it("advertises the extension, not the 2025 tasks slot", async () => {
    const discovered = result(await send("server/discover", {}, { user: "ada" }));
    expect(discovered.capabilities.extensions).toEqual({ [EXT]: {} });
    expect(discovered.capabilities.tasks).toBeUndefined();
  });

  it("runs a task-capable tool as a task: CreateTaskResult, working, then completed with the result inlined", async () => {
    const created = result(await send("tools/call", { name: "slow_compute", arguments: { label: "one" } }, { user: "ada" }));
    expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 100 });
    expect(created).not.toHaveProperty("task");
    expect(created).not.toHaveProperty("ttl");
    expect(created).not.toHaveProperty("pollInterval");
    // Opaque: not the child's own id (32 hex digits).
    expect(created.taskId).not.toMatch(/^[0-9a-f]{32}$/);
    const taskId = created.taskId as string;

    expect(result(await send("tasks/get", { taskId }, { user: "ada" }))).toMatchObject({ resultType: "complete", taskId, status: "working" });
    expect(result(await send("tools/call", { name: "release", arguments: { label: "one" } }, { user: "ada" })).content).toEqual([
      { type: "text", text: "released 1" },
    ]);
    const ended = await untilEnded(taskId);
    expect(ended).toMatchObject({ resultType: "complete", taskId, status: "completed", result: { content: [{ type: "text", text: "done one" }] } });
    expect(ended.result._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined();
  });

  it("reports a tool error as completed with isError, and a task-only tool without the extension as -32021", async () => {
    const created = result(await send("tools/call", { name: "failing_job", arguments: {} }, { user: "ada" }));
    expect(created.resultType).toBe("task");
    expect(await untilEnded(created.taskId)).toMatchObject({
      status: "completed",
      result: { isError: true, content: [{ type: "text", text: "the job failed" }] },
    });

    const refused = await send("tools/call", { name: "failing_job", arguments: {} }, { user: "ada", capabilities: {} });
    expect(refused.json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
  });

  it("reports a task that failed with a JSON-RPC error as failed with the error and no result", async () => {
    const created = result(await send("tools/call", { name: "protocol_error_job", arguments: {} }, { user: "ada" }));
    const ended = await untilEnded(created.taskId);
    expect(ended).toMatchObject({ status: "failed", error: { code: expect.any(Number), message: expect.any(String) } });
    expect(ended).not.toHaveProperty("result");
  });

  it("asks the child's question before the task exists (input_required), then answers the retry with the task", async () => {
    const ELICIT = { elicitation: { form: {} }, ...WITH_TASKS };
    const first = result(await send("tools/call", { name: "test_tool_with_task", arguments: {} }, { user: "ada", capabilities: ELICIT }));
    expect(first.resultType).toBe("input_required");
    expect(first).not.toHaveProperty("taskId");
    const [key] = Object.keys(first.inputRequests);
    const retry = {
      name: "test_tool_with_task",
      arguments: {},
      requestState: first.requestState,
      inputResponses: { [key ?? ""]: { action: "accept", content: { name: "Alice" } } },
    };
    const created = result(await send("tools/call", retry, { user: "ada", capabilities: ELICIT }));
    expect(created.resultType).toBe("task");
    expect(created).not.toHaveProperty("requestState");
    expect(await untilEnded(created.taskId)).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "Hello, Alice!" }] } });
  });

  it("runs an optional task tool synchronously for a client without the extension, and ignores a 2025 task param", async () => {
    const plain = result(await send("tools/call", { name: "slow_compute", arguments: { label: "sync", seconds: 0 } }, { user: "ada", capabilities: {} }));
    expect(plain).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "done sync" }] });
    expect(plain.taskId).toBeUndefined();
    const legacyParam = result(
      await send("tools/call", { name: "slow_compute", arguments: { label: "sync2", seconds: 0 }, task: { ttl: 1000 } }, { user: "ada", capabilities: {} }),
    );
    expect(legacyParam).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "done sync2" }] });
  });

  it("gates tasks/* on the extension, names tasks/result and tasks/list unknown, and checks Mcp-Name against taskId", async () => {
    const created = result(await send("tools/call", { name: "slow_compute", arguments: { label: "gate", seconds: 0 } }, { user: "ada" }));
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const answer = await send(method, { taskId: created.taskId, inputResponses: {} }, { user: "ada", capabilities: {} });
      expect(answer.json.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    }
    for (const method of ["tasks/result", "tasks/list"]) expect((await send(method, { taskId: created.taskId }, { user: "ada" })).json.error.code).toBe(-32601);
    const mismatched = await send("tasks/get", { taskId: created.taskId }, { user: "ada", name: "another-task" });
    expect(mismatched.status).toBe(400);
    expect(mismatched.json.error.code).toBe(-32020);
    expect(result(await send("tasks/update", { taskId: created.taskId, inputResponses: { nobody: {} } }, { user: "ada" }))).toMatchObject({
      resultType: "complete",
    });
  });

  it("refuses another user's task id and a forged one, as unknown tasks", async () => {
    const created = result(await send("tools/call", { name: "slow_compute", arguments: { label: "mine" } }, { user: "ada" }));
    for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
      expect((await send(method, { taskId: created.taskId, inputResponses: {} }, { user: "bob" })).json.error).toMatchObject(UNKNOWN);
    }
    const [version, body = "", tag = ""] = String(created.taskId).split(".");
    const forged = `${version}.${body}.${tag[0] === "A" ? "B" : "A"}${tag.slice(1)}`;
    expect((await send("tasks/get", { taskId: forged }, { user: "ada" })).json.error).toMatchObject(UNKNOWN);
    expect((await send("tasks/get", { taskId: "guessed" }, { user: "ada" })).json.error).toMatchObject(UNKNOWN);
    // Still ada's, and still running: bob's cancel did not reach it.
    expect(result(await send("tasks/get", { taskId: created.taskId }, { user: "ada" })).status).toBe("working");
    await send("tools/call", { name: "release", arguments: { label: "mine" } }, { user: "ada" });
  });

  it("cancels a running task with an empty ack, and acknowledges a second cancel alike", async () => {
    const created = result(await send("tools/call", { name: "slow_compute", arguments: { label: "stop" } }, { user: "ada" }));
    const ack = result(await send("tasks/cancel", { taskId: created.taskId }, { user: "ada" }));
    expect(ack.resultType).toBe("complete");
    for (const key of ["taskId", "status", "result", "error"]) expect(ack).not.toHaveProperty(key);
    expect(result(await send("tasks/get", { taskId: created.taskId }, { user: "ada" })).status).toBe("cancelled");
    expect(result(await send("tasks/cancel", { taskId: created.taskId }, { user: "ada" })).resultType).toBe("complete");
  });

  it("keeps 2025 clients on the child's own tasks through their session", async () => {
    const { client } = await connectClient(bridge, "tasks", {}, "ada");
    try {
      const created = await client.request(
        { method: "tools/call", params: { name: "slow_compute", arguments: { label: "legacy", seconds: 0 }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      expect(created.task.status).toBe("working");
      const done = await client.request({ method: "tasks/result", params: { taskId: created.task.taskId } }, CallToolResultSchema);
      expect(done.content).toEqual([{ type: "text", text: "done legacy" }]);
      expect((await client.request({ method: "tasks/get", params: { taskId: created.task.taskId } }, GetTaskResultSchema)).status).toBe("completed");
    } finally {
      await client.close();
    }
  });

  it("answers a task of a child that has since restarted as an unknown task, saying so", async () => {
    const created = result(await send("tools/call", { name: "slow_compute", arguments: { label: "lost" } }, { user: "ada" }));
    const pid = (await bridge.health()).servers.tasks?.pid ?? 0;
    process.kill(pid, "SIGKILL");
    await bridge.waitForLog(/server unavailable/);
    const down = await send("tasks/get", { taskId: created.taskId }, { user: "ada" });
    expect(down.json.error).toMatchObject({ ...UNKNOWN, message: expect.stringContaining("restarted") });
    // The next call starts a new child; the old task is still unknown there.
    expect(result(await send("tools/call", { name: "greet", arguments: { name: "Ada" } }, { user: "ada" })).content).toEqual([
      { type: "text", text: "Hello, Ada!" },
    ]);
    expect((await bridge.health()).servers.tasks?.pid).not.toBe(pid);
    const up = await send("tasks/get", { taskId: created.taskId }, { user: "ada" });
    expect(up.json.error).toMatchObject({ ...UNKNOWN, message: expect.stringContaining("restarted") });
  });
});
