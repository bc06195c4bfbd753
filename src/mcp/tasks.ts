// The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the client side: a
// 2026 server may answer a `tools/call` of a task-capable tool with a CreateTaskResult
// (`resultType: "task"`, the task's id, status, ttlMs, pollIntervalMs) instead of the
// result; the client then asks `tasks/get` (which inlines the result once the task ended)
// and may `tasks/cancel`. The host declares the extension on every connection; whether a
// call becomes a task is the server's choice (the extension has no client hint).
//
// The SDK 2.4 has the methods' names but no runtime: `client.request` sends `tasks/get`
// and `tasks/cancel` with an explicit schema (it lets exactly these two through on 2026),
// while a `resultType: "task"` answer is rejected by its decoder as an unsupported result
// type, losing the task. So the connection's transport wrapper (tracked-transport.ts) lifts
// such an answer, before the SDK reads it, into a complete result that carries the task
// under TASK_META; `startedTask` reads it back. Nothing here is JSON-RPC framing.
import {
  isJSONRPCResultResponse,
  type CallToolResult,
  type Client,
  type CreateMessageRequest,
  type ElicitRequest,
  type JSONRPCMessage,
} from "@modelcontextprotocol/client";
import type { ServerRequestHandlers } from "./server-requests";
import { z } from "zod";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** Where a lifted CreateTaskResult rides on the result the SDK hands back (never sent by us, stripped if a server sends it). */
const TASK_META = "dev.edgehost/created-task";

export const TaskStatusSchema = z.enum(["working", "input_required", "completed", "failed", "cancelled"]);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;
export const TERMINAL_TASK_STATUSES: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** The task fields of a CreateTaskResult or a tasks/get answer (the server's: bounded, other fields ignored). */
const TaskFieldsSchema = z.object({
  taskId: z.string().min(1).max(1024),
  status: TaskStatusSchema,
  statusMessage: z.string().max(4_000).optional(),
  ttlMs: z.number().int().positive().nullable().optional(),
  pollIntervalMs: z.number().int().positive().optional(),
});

/** tasks/get's answer: the task, with the tool's result inlined once completed, or the protocol error once failed. */
const TaskStateSchema = TaskFieldsSchema.extend({
  /** With input_required: the task's questions by key, each a server request (elicitation/create, sampling/createMessage). */
  inputRequests: z.record(z.string().max(256), z.object({ method: z.string(), params: z.record(z.string(), z.unknown()).optional() })).optional(),
  result: z.looseObject({ content: z.array(z.unknown()).default([]), isError: z.boolean().optional() }).optional(),
  error: z.object({ code: z.number(), message: z.string().max(4_000), data: z.unknown().optional() }).optional(),
});
export type TaskState = z.infer<typeof TaskStateSchema>;

const EmptySchema = z.looseObject({});

/** A task a tools/call started: which server and tool, and how the server wants it polled. */
export interface StartedTask {
  server: string;
  tool: string;
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  pollIntervalMs?: number;
  ttlMs?: number | null;
}

/**
 * An incoming message as the SDK should read it: a `resultType: "task"` answer becomes a
 * complete result carrying the task under TASK_META; a server's own TASK_META is removed,
 * so only a lifted answer can look like a task.
 */
export function liftTaskResult(message: JSONRPCMessage): JSONRPCMessage {
  if (!isJSONRPCResultResponse(message)) return message;
  const { resultType, _meta, ...rest } = message.result as Record<string, unknown>;
  const meta = isObject(_meta) ? _meta : undefined;
  if (resultType === "task") {
    return { ...message, result: { resultType: "complete", content: [], _meta: { ...meta, [TASK_META]: rest } } };
  }
  if (meta && TASK_META in meta) {
    const { [TASK_META]: _forged, ...kept } = meta;
    return { ...message, result: { ...message.result, _meta: kept } };
  }
  return message;
}

/** The task a tools/call started, when its answer was a (lifted) CreateTaskResult. */
export function startedTask(result: CallToolResult, server: string, tool: string): StartedTask | undefined {
  const lifted = result._meta?.[TASK_META];
  if (lifted === undefined) return undefined;
  const task = TaskFieldsSchema.safeParse(lifted);
  if (!task.success) throw new TypeError(`${server}.${tool} answered with a task that is not valid: ${task.error.issues[0]?.message ?? "bad shape"}`);
  return { server, tool, ...task.data };
}

/** `tasks/get`: the task's state, with its result once it ended. */
export async function getTask(client: Client, taskId: string, options: { signal?: AbortSignal; timeout?: number } = {}): Promise<TaskState> {
  const state = await client.request({ method: "tasks/get", params: { taskId } }, TaskStateSchema, options);
  if (state.taskId !== taskId) throw new TypeError(`tasks/get for ${taskId} answered for another task`);
  return state;
}

/** `tasks/cancel`: acknowledged empty; the task's state says later whether it stopped. */
export async function cancelTask(client: Client, taskId: string, options: { signal?: AbortSignal; timeout?: number } = {}): Promise<void> {
  await client.request({ method: "tasks/cancel", params: { taskId } }, EmptySchema, options);
}

/**
 * Answers an input_required task's questions through the host's server-request handlers
 * (the same question and sampling paths as any server's request), then `tasks/update`.
 * A question no handler takes is answered as declined (elicitation) or left out.
 */
export async function answerTaskInputs(
  client: Client,
  handlers: ServerRequestHandlers,
  server: string,
  taskId: string,
  inputRequests: NonNullable<TaskState["inputRequests"]>,
  signal: AbortSignal,
): Promise<void> {
  const answers = await Promise.all(
    Object.entries(inputRequests).map(async ([key, request]): Promise<[string, unknown] | undefined> => {
      if (request.method === "elicitation/create") {
        const params = request.params as ElicitRequest["params"];
        return [key, handlers.elicitation ? await handlers.elicitation({ server, params, signal }) : { action: "decline" }];
      }
      if (request.method === "sampling/createMessage" && handlers.sampling) {
        return [key, await handlers.sampling({ server, params: request.params as CreateMessageRequest["params"], signal })];
      }
      return undefined;
    }),
  );
  const inputResponses = Object.fromEntries(answers.filter((a) => a !== undefined));
  await client.request({ method: "tasks/update", params: { taskId, inputResponses } }, EmptySchema, { signal });
}

/** What an ended task means for the call that started it: the tool's result, or an error's text. */
export function taskOutcome(state: TaskState): { ok: true; result: CallToolResult } | { ok: false; error: string } {
  // Checked loosely by TaskStateSchema (content an array); the content blocks are the server's, as any tool result's.
  if (state.status === "completed" && state.result) return { ok: true, result: state.result as CallToolResult };
  if (state.status === "cancelled") return { ok: false, error: "The task was cancelled." };
  const why = state.error?.message ?? state.statusMessage ?? "no reason given";
  return { ok: false, error: `The task failed: ${why}` };
}

/**
 * How long until the next poll: the server's interval when it gave one, else a backoff
 * from `floorMs` doubling per poll; never under `floorMs` (a server's 100 ms would wake a
 * Durable Object ten times a second) nor over a minute.
 */
export function nextPollMs(pollIntervalMs: number | undefined, polls: number, floorMs = 1_000): number {
  const backoff = floorMs * 2 ** Math.min(polls, 6);
  return Math.min(60_000, Math.max(floorMs, pollIntervalMs ?? backoff));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
