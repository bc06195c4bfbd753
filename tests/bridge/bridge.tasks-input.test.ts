// A task's own questions through the bridge: the 2025 child (tests/fixtures/task-server.mjs)
// queues its elicitation for a tasks/result reader and sets the task input_required; a
// 2026 client with the Tasks extension sees the questions as `inputRequests` on tasks/get
// and answers them with tasks/update, one at a time if it likes, and the task goes on.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { envelope, modernHeaders, postRaw } from "../fixtures/bridge-modern";
import { repoRoot } from "../fixtures/servers";

const CAPABILITIES = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
const TASKS_ONLY = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const taskServer = { command: process.execPath, args: [join(repoRoot, "tests", "fixtures", "task-server.mjs")] };
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge({ tasks: taskServer }, ["--no-watch"]);
});
afterAll(async () => {
  await bridge?.stop();
});

let nextId = 1;
async function send(
  method: string,
  params: Record<string, unknown>,
  user = "ada",
  capabilities: Record<string, unknown> = CAPABILITIES,
): Promise<Record<string, any>> {
  const name = String(params.taskId ?? params.name);
  const body = { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: envelope(capabilities) } };
  const answer = await postRaw(bridge, "tasks", body, { ...modernHeaders(method, name), "x-edgehost-user": user });
  expect(answer.json.error).toBeUndefined();
  return answer.json.result;
}

/** Polls tasks/get until the task shows `status` (each poll waits on the bridge's answer). */
async function until(taskId: string, status: string): Promise<Record<string, any>> {
  for (;;) {
    const task = await send("tasks/get", { taskId });
    if (task.status === status || ["completed", "failed", "cancelled"].includes(task.status)) return task;
  }
}

describe("bridge, a task's questions for 2026 clients", () => {
  it("gives the task's question to the task, not to an older call of the same user in flight", async () => {
    const { client } = await connectClient(bridge, "tasks", { elicitation: {} }, "ada");
    const askedOld: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      askedOld.push(request.params);
      return { action: "decline" };
    });
    try {
      // A 2025 call that stays in flight (until released) from a session that can be asked things.
      const held = client.callTool({ name: "slow_compute", arguments: { label: "older" } });
      // At the child once it counts it (each count waits on a real answer, not a timer).
      // Counted and released by a client that cannot be asked: such calls run beside the older one
      // (one that could be asked would wait for it at the bridge: ask-gate.ts).
      while ((await send("tools/call", { name: "waiting", arguments: { label: "older" } }, "ada", TASKS_ONLY)).content[0].text !== "1");
      const created = await send("tools/call", { name: "confirm_delete", arguments: {} });
      const waiting = await until(created.taskId, "input_required");
      expect(Object.values(waiting.inputRequests)).toEqual([expect.objectContaining({ method: "elicitation/create" })]);
      expect(askedOld).toEqual([]);
      const [key] = Object.keys(waiting.inputRequests);
      await send("tasks/update", { taskId: created.taskId, inputResponses: { [key ?? ""]: { action: "accept", content: { confirm: false } } } });
      expect((await until(created.taskId, "completed")).result.content).toEqual([{ type: "text", text: "kept" }]);
      await send("tools/call", { name: "release", arguments: { label: "older" } }, "ada", TASKS_ONLY);
      expect((await held).content).toEqual([{ type: "text", text: "done older" }]);
    } finally {
      await client.close();
    }
  });

  it("shows the task's question as inputRequests, and tasks/update's answer lets it finish", async () => {
    const created = await send("tools/call", { name: "confirm_delete", arguments: {} });
    expect(created.resultType).toBe("task");
    const waiting = await until(created.taskId, "input_required");
    expect(waiting.status).toBe("input_required");
    const keys = Object.keys(waiting.inputRequests);
    expect(keys).toHaveLength(1);
    expect(waiting.inputRequests[keys[0] ?? ""]).toMatchObject({ method: "elicitation/create", params: { message: "Delete the file?" } });

    const ack = await send("tasks/update", { taskId: created.taskId, inputResponses: { [keys[0] ?? ""]: { action: "accept", content: { confirm: true } } } });
    expect(ack).toMatchObject({ resultType: "complete" });
    expect(ack).not.toHaveProperty("status");
    expect(await until(created.taskId, "completed")).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "deleted" }] } });
  });

  it("keeps the task input_required until every question is answered, showing only those still open", async () => {
    const created = await send("tools/call", { name: "multi_input", arguments: {} });
    let waiting = await until(created.taskId, "input_required");
    // Both questions come out of the child's queue; a poll may see the first before the second.
    while (Object.keys(waiting.inputRequests ?? {}).length < 2) waiting = await send("tasks/get", { taskId: created.taskId });
    const [first, second] = Object.keys(waiting.inputRequests);
    expect(first).not.toBe(second);

    await send("tasks/update", { taskId: created.taskId, inputResponses: { [first ?? ""]: { action: "accept", content: { name: "Ada" } }, unknown: {} } });
    const half = await send("tasks/get", { taskId: created.taskId });
    expect(half.status).toBe("input_required");
    expect(Object.keys(half.inputRequests)).toEqual([second]);

    await send("tasks/update", { taskId: created.taskId, inputResponses: { [second ?? ""]: { action: "accept", content: { name: "Grace" } } } });
    expect(await until(created.taskId, "completed")).toMatchObject({ result: { content: [{ type: "text", text: "Ada and Grace" }] } });
  });
});
