// Task status on `subscriptions/listen` (Tasks extension, SEP-2663): a 2026 client that
// names its task in `taskIds` hears `notifications/tasks` when the 2025 child's task
// changes status (the v1 SDK's notifications/tasks/status), carrying the task as tasks/get
// shows it; another user's stream naming the same id is not told of it, and a client
// without the extension is refused. The child is tests/fixtures/task-server.mjs, a real
// v1-SDK stdio server whose slow_compute task ends when the test calls release.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "../fixtures/bridge";
import { envelope, modernHeaders, postRaw } from "../fixtures/bridge-modern";
import { repoRoot } from "../fixtures/servers";
import { raw, type RawAnswer } from "./raw-sse";

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const taskServer = { command: process.execPath, args: [join(repoRoot, "tests", "fixtures", "task-server.mjs")] };
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge({ tasks: taskServer }, ["--no-watch"]);
});
afterAll(async () => {
  await bridge?.stop();
});

let nextId = 1;
async function call(name: string, args: Record<string, unknown>, user: string): Promise<Record<string, any>> {
  const body = { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args, _meta: envelope(TASKS) } };
  const answer = await postRaw(bridge, "tasks", body, { ...modernHeaders("tools/call", name), "x-edgehost-user": user });
  expect(answer.json.error).toBeUndefined();
  return answer.json.result;
}

function listen(id: string, notifications: Record<string, unknown>, user: string, capabilities: Record<string, unknown> = TASKS): Promise<RawAnswer> {
  return raw(`${bridge.url}/servers/tasks/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bridge.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-edgehost-user": user,
      ...modernHeaders("subscriptions/listen"),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { _meta: envelope(capabilities), notifications } }),
  });
}

const message = (data: string) => JSON.parse(data) as { method?: string; params: Record<string, any> };

describe("bridge, task status on subscriptions/listen for 2026 clients", () => {
  it("tells the task's owner of its status as notifications/tasks, and nobody else", async () => {
    const created = await call("slow_compute", { label: "listened" }, "ada");
    expect(created.resultType).toBe("task");
    const taskId = String(created.taskId);

    const ada = await listen("sub-ada", { taskIds: [taskId] }, "ada");
    const adaAck = message((await ada.next((b) => b.data !== "")).data);
    expect(adaAck).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { taskIds: [taskId] } } });
    // Another user naming the id: it is not theirs, so the filter they get has no taskIds.
    const bob = await listen("sub-bob", { taskIds: [taskId] }, "bob");
    const bobAck = message((await bob.next((b) => b.data !== "")).data);
    expect(bobAck.params.notifications).toEqual({});

    expect((await call("release", { label: "listened" }, "ada")).content).toEqual([{ type: "text", text: "released 1" }]);
    const status = message((await ada.next((b) => b.data.includes('"notifications/tasks"'))).data);
    expect(status.params).toMatchObject({
      taskId,
      status: "completed",
      result: { content: [{ type: "text", text: "done listened" }] },
      _meta: { "io.modelcontextprotocol/subscriptionId": "sub-ada" },
    });
    expect(status.params).not.toHaveProperty("ttl");
    ada.drop();
    bob.drop();
    // Bob's stream watches nothing (its acknowledgement said so): it heard nothing else.
    expect(bob.blocks.filter((b) => b.data !== "").map((b) => message(b.data).method)).toEqual(["notifications/subscriptions/acknowledged"]);
  });

  it("refuses taskIds from a client that did not declare the Tasks extension, with -32021", async () => {
    const answer = await listen("sub-plain", { taskIds: ["t1.x.y"] }, "ada", {});
    await answer.ended;
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text())).toMatchObject({ id: "sub-plain", error: { code: -32021 } });
  });
});
