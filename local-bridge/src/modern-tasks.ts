// The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for 2026 clients, over a
// 2025 child that runs tool calls as tasks (`capabilities.tasks`, `execution.taskSupport`,
// the v1 SDK's experimental tasks). The bridge passes the calls through and translates
// the vocabulary: a client that declares the extension gets a task-capable tool's call
// sent to the child task-augmented, and the child's `{ task }` back as a flat
// CreateTaskResult (`resultType: "task"`, `ttlMs`, `pollIntervalMs`); `tasks/get` asks the
// child and, once the task ended, inlines its `tasks/result` (a tool error is "completed"
// with `isError`, as the extension wants, where 2025 said "failed"); `tasks/cancel` and
// `tasks/update` are acknowledged with an empty result. Nothing is held here: the task
// id says which child process runs it and binds it to the user (modern-task-id.ts), so a
// restart loses no state the bridge kept, and an id whose task went with a restarted
// child or bridge is answered as an unknown task, saying so.
// A task's own questions (2025 queues them for a `tasks/result` reader) become its
// `inputRequests` on tasks/get and are answered by tasks/update (modern-task-feed.ts).
// The child's `notifications/tasks/status` reach a subscriptions/listen stream that named
// the task in `taskIds`, as the extension's `notifications/tasks` carrying the task as
// tasks/get would show it then (detailedTask; modern-listen.ts).
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { modernResult } from "./modern-call";
import { MODERN_ERROR } from "./modern-protocol";
import { askChild, taskSupportOf } from "./modern-task-child";
import { answerFeed, feedOf, runningFeed } from "./modern-task-feed";
import { childInstance, mintTaskId, openTaskId, type TaskBinding } from "./modern-task-id";
import type { ServerProxy } from "./proxy";
import type { BridgeResponse } from "./request";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** The extension's methods (tasks/result and tasks/list are gone from it: method not found). */
export const TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);
/** How long a child is asked to keep a task a 2026 client created (2026 tools/call carries no ttl of its own). */
export const TASK_TTL_MS = 60 * 60_000;
const RELATED_TASK = "io.modelcontextprotocol/related-task";
const TERMINAL = new Set(["completed", "failed", "cancelled"]);

export function declaresTasks(capabilities: Json): boolean {
  return isObject(capabilities.extensions) && isObject(capabilities.extensions[TASKS_EXTENSION]);
}

/** Whether a 2025 child runs tool calls as tasks (`capabilities.tasks.requests.tools.call`). */
function childRunsTasks(capabilities: unknown): boolean {
  if (!isObject(capabilities) || !isObject(capabilities.tasks)) return false;
  const requests = capabilities.tasks.requests;
  return isObject(requests) && isObject(requests.tools) && isObject(requests.tools.call);
}

/** A 2025 child's capabilities as `server/discover` names them: the 2025 tasks slot off, the extension on when it runs tool tasks. */
export function discoverCapabilities(capabilities: Json): Json {
  const { tasks, ...rest } = capabilities;
  if (!childRunsTasks(capabilities)) return rest;
  const extensions = isObject(rest.extensions) ? rest.extensions : {};
  return { ...rest, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

export type ToolCallPlan = { task: false } | { task: true; instance: string } | { refusal: { code: number; message: string; data: Json } };

/** How a 2026 tools/call goes to the child: task-augmented or not, or refused for a task-only tool and a client without the extension. */
export async function planToolCall(proxy: ServerProxy, user: string, tool: unknown, capabilities: Json): Promise<ToolCallPlan> {
  if (typeof tool !== "string" || !childRunsTasks(proxy.child?.info?.capabilities)) return { task: false };
  let support: string;
  try {
    support = await taskSupportOf(proxy, user, tool);
  } catch {
    return { task: false }; // the call itself meets the same trouble and reports it
  }
  const child = proxy.child;
  if (support !== "optional" && support !== "required") return { task: false };
  if (declaresTasks(capabilities) && child) return { task: true, instance: childInstance(child) };
  if (support === "optional") return { task: false };
  return {
    refusal: {
      code: MODERN_ERROR.missingClientCapability,
      message: `Tool ${tool} runs only as a task: declare the ${TASKS_EXTENSION} extension in the request's client capabilities`,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    },
  };
}

/** The extension's fields of a 2025 task, under the id the client knows it by. */
function modernTask(task: Json, taskId: string): Json {
  const { taskId: _childId, ttl, pollInterval, _meta, ...rest } = task;
  return {
    ...rest,
    taskId,
    ttlMs: typeof ttl === "number" && ttl > 0 ? Math.ceil(ttl) : null,
    ...(typeof pollInterval === "number" && pollInterval > 0 ? { pollIntervalMs: Math.ceil(pollInterval) } : {}),
  };
}

/** A task-augmented call's result: the child's `{ task }` as a CreateTaskResult; anything else as it came. */
export function createTaskResult(result: Json, instance: string, binding: TaskBinding): Json {
  const task = result.task;
  if (!isObject(task) || typeof task.taskId !== "string") return result;
  return { ...modernTask(task, mintTaskId({ instance, taskId: task.taskId }, binding)), resultType: "task" };
}

function reply(res: BridgeResponse, id: JSONRPCRequest["id"], body: Json): void {
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, ...body }));
}

function unknownTask(res: BridgeResponse, id: JSONRPCRequest["id"], why: string): void {
  reply(res, id, { error: { code: MODERN_ERROR.invalidParams, message: `Unknown task: ${why}`, data: { reason: "unknown_task" } } });
}

/** tasks/get, tasks/update and tasks/cancel of a 2026 client. */
export async function serveTask(proxy: ServerProxy, user: string, res: BridgeResponse, request: JSONRPCRequest, capabilities: Json): Promise<void> {
  const id = request.id;
  if (!declaresTasks(capabilities))
    return reply(res, id, {
      error: {
        code: MODERN_ERROR.missingClientCapability,
        message: `${request.method} needs the ${TASKS_EXTENSION} extension in the request's client capabilities`,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      },
    });
  const params = (request.params ?? {}) as Json;
  const binding = { user, server: proxy.name };
  const ref = openTaskId(params.taskId, binding);
  if (!ref) return unknownTask(res, id, "no task of yours has this id here (a task does not outlive the bridge that ran it)");
  const child = proxy.child;
  if (!child || childInstance(child) !== ref.instance)
    return unknownTask(res, id, `the MCP server "${proxy.name}" that ran it has restarted since, and its tasks went with it`);
  const childTask = { taskId: ref.taskId };
  const serverInfo = child.info?.serverInfo;
  const complete = (result: Json) => reply(res, id, { result: modernResult(request.method, result, serverInfo, { ttlMs: 0, cacheScope: "private" }) });
  const status = await askChild(proxy, user, "tasks/get", childTask);
  if (!("result" in status)) return unknownTask(res, id, "the MCP server no longer has it (its time to live may have passed)");
  // An ended task's feed has nothing left to read: it goes now, not when the child's tasks/result next wakes.
  if (TERMINAL.has(String(status.result.status)) || request.method === "tasks/cancel") runningFeed(proxy, ref.taskId)?.close();
  if (request.method === "tasks/cancel") {
    // Cancelling an ended task is acknowledged alike: the extension keeps -32602 for unknown ids.
    if (!TERMINAL.has(String(status.result.status))) await askChild(proxy, user, "tasks/cancel", childTask);
    return complete({});
  }
  if (request.method === "tasks/update") {
    // Answers to the task's questions (modern-task-feed.ts); keys not outstanding are ignored, as the extension asks.
    const feed = runningFeed(proxy, ref.taskId);
    if (feed) await answerFeed(proxy, feed, params.inputResponses);
    return complete({});
  }
  return complete(await detailedTask(proxy, user, ref.taskId, String(params.taskId), status.result, capabilities));
}

/**
 * The task as tasks/get shows it to a 2026 client, from the child's 2025 task (its tasks/get
 * answer, or a status notification's params): its questions while input_required, its
 * result inlined once it ended.
 */
export async function detailedTask(
  proxy: ServerProxy,
  user: string,
  childTaskId: string,
  clientTaskId: string,
  childTask: Json,
  capabilities: Json,
): Promise<Json> {
  // An ended task's feed has nothing left to read: it goes now, not when the child's tasks/result next wakes.
  if (TERMINAL.has(String(childTask.status))) runningFeed(proxy, childTaskId)?.close();
  const task = modernTask(childTask, clientTaskId);
  if (task.status === "input_required") {
    const feed = feedOf(proxy, user, childTaskId, capabilities);
    await feed.pending();
    // Every question answered and the child not yet back at work: nothing is the client's to do.
    if (feed.questions.size === 0) return { ...task, status: "working" };
    return { ...task, inputRequests: Object.fromEntries(feed.questions) };
  }
  if (task.status !== "completed" && task.status !== "failed") return task;
  const outcome = await askChild(proxy, user, "tasks/result", { taskId: childTaskId });
  if (!("result" in outcome)) return { ...task, status: "failed", error: outcome.error };
  const { _meta, ...result } = outcome.result;
  const meta = isObject(_meta) ? Object.fromEntries(Object.entries(_meta).filter(([key]) => key !== RELATED_TASK)) : {};
  return { ...task, status: "completed", result: Object.keys(meta).length > 0 ? { ...result, _meta: meta } : result };
}

/** The tasks a listen stream asked to hear of (`taskIds`) that are the user's on the running child: the client's id by the child's. */
export function watchedTasks(proxy: ServerProxy, user: string, asked: unknown): Map<string, string> {
  const watched = new Map<string, string>();
  const ids = isObject(asked) && Array.isArray(asked.taskIds) ? asked.taskIds : [];
  const child = proxy.child;
  if (!child || ids.length === 0 || !childRunsTasks(child.info?.capabilities)) return watched;
  const instance = childInstance(child);
  for (const id of ids) {
    const ref = openTaskId(id, { user, server: proxy.name });
    if (ref?.instance === instance) watched.set(ref.taskId, String(id));
  }
  return watched;
}
