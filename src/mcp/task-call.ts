// What becomes of a tool call the server turned into a task (tasks.ts): handed to the
// caller's `onTask` (a chat session holds it in its Durable Object and polls on alarms),
// or, for a caller that gave none, waited for here by polling `tasks/get` at the server's
// interval (Node callers, tests). Cancelling the caller's signal cancels the task.
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { ServerConnection } from "./connection";
import { CancelledError, ProtocolError } from "./errors";
import { sleep } from "../shared/backoff";
import { cancelTask, getTask, nextPollMs, TERMINAL_TASK_STATUSES, taskOutcome, type StartedTask, type TaskState } from "./tasks";

export type TaskHandler = (task: StartedTask) => Promise<CallToolResult>;

export interface TaskWaitOptions {
  signal?: AbortSignal;
  /** Told of every state the task is seen in (the first is the CreateTaskResult's). */
  onState?: (state: Pick<TaskState, "status" | "statusMessage">) => void;
  /** The shortest wait between polls (default 1 s). */
  pollFloorMs?: number;
}

/** Polls `task` until it ends; its result, or a typed error. */
export async function waitForTask(connection: ServerConnection, task: StartedTask, options: TaskWaitOptions = {}): Promise<CallToolResult> {
  const { signal } = options;
  let interval = task.pollIntervalMs;
  options.onState?.(task);
  for (let polls = 0; ; polls++) {
    try {
      await sleep(nextPollMs(interval, polls, options.pollFloorMs), signal);
    } catch {
      // Best effort: the caller is gone either way, and the server's ttl ends the task at worst.
      const client = await connection.ready().catch(() => undefined);
      if (client) await cancelTask(client, task.taskId, { timeout: connection.config.timeoutMs }).catch(() => undefined);
      throw new CancelledError(connection.name, `${task.tool} task`);
    }
    const state = await getTask(await connection.ready(), task.taskId, { signal, timeout: connection.config.timeoutMs });
    options.onState?.(state);
    interval = state.pollIntervalMs ?? interval;
    if (!TERMINAL_TASK_STATUSES.has(state.status)) continue;
    if (state.status === "cancelled") throw new CancelledError(connection.name, `${task.tool} task`);
    const outcome = taskOutcome(state);
    if (!outcome.ok) throw new ProtocolError(connection.name, `${task.tool}: ${outcome.error}`);
    return outcome.result;
  }
}
