// The tasks a chat session holds (MCP Tasks extension, src/mcp/tasks.ts). A model's tool
// call that the server made a task is held here: its row is written (task-rows.ts), and the
// Durable Object's alarm calls `poll()` when the next `tasks/get` is due (the server's
// pollIntervalMs, at least task-alarm.ts's floor; a backoff when it gave none or failed). No
// loop is held in memory: the running turn only waits on a promise that a poll settles.
// When a task ends: the turn still waiting gets its result like any tool call's; with no
// turn waiting (the page closed and the turn was cut by a restart, or the object was
// evicted) a follow-up turn opens with an entry that says the task finished and what it
// returned, and the model answers it. Bounded: TASKS_PER_USER running tasks across the
// owner's sessions (task-cap.ts), and a deadline after which the task is cancelled at its server.
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { McpHost } from "../../mcp/host";
import type { CallToolOptions } from "../../mcp/call";
import { CancelledError, ProtocolError } from "../../mcp/errors";
import { answerTaskInputs, cancelTask, getTask, nextPollMs, TERMINAL_TASK_STATUSES, taskOutcome, type StartedTask, type TaskState } from "../../mcp/tasks";
import type { ServerRequestHandlers } from "../../mcp/server-requests";
import type { ServerMessage } from "../../protocol/messages";
import { EdgehostError } from "../../shared/errors";
import { errorMessage, type Logger } from "../../shared/logger";
import { TaskWake, taskPollFloorMs } from "./task-alarm";
import { TaskCap } from "./task-cap";
import { TaskDeadlineError, TaskLimitError, UnknownTaskError } from "./task-errors";
import type { TaskRow, TaskRows } from "./task-rows";
import { followUpEntry, frameOf, type FollowUpEntry, type Outcome, type TaskFrame } from "./task-view";
import type { TaskSlotPort } from "./task-slot-port";

/** The default of TASKS_PER_USER (src/config/settings.ts). */
export const TASKS_PER_USER = 5;
export const TASK_DEADLINE_MS = 24 * 60 * 60_000;
/** A follow-up that could not start (a turn was running) is tried again this much later. */
const FOLLOW_UP_RETRY_MS = 5_000;
type Waiter = { resolve: (result: CallToolResult) => void; reject: (error: Error) => void };

export interface SessionTasksDeps {
  rows: TaskRows;
  /** The session's McpHost, connected (after a wake, connecting it first). */
  host: () => Promise<McpHost>;
  /** The object's alarm calls `poll()` at `at` (ms since the epoch) or earlier. */
  wakeAt: (at: number) => void;
  broadcast: (message: ServerMessage) => void;
  /**
   * Where an input_required task's questions go; by default the host's own server-request
   * handlers (session-host.ts), so a task's form and URL questions and its sampling take the
   * same paths, with the same rules, as a call's.
   */
  questions?: ServerRequestHandlers;
  /** A task that asked is past its questions (moving on, or ended): a URL question's wait for its server is over (url-waits.ts settled). */
  answered?: (server: string) => void;
  /** No turn waits for an ended task: open a follow-up turn with `entry` (task-view.ts). False when one cannot start now. */
  followUp: (entry: FollowUpEntry) => Promise<boolean>;
  /** The owner's account's task slots (the per-user cap); undefined with no owner: the session's own rows count. */
  slots?: () => TaskSlotPort | undefined;
  log: Logger;
  now?: () => number;
  limits?: { running?: number; deadlineMs?: number };
}

export class SessionTasks {
  /** Turns waiting in this wake, by call id (a restart loses them: the follow-up path takes over). */
  private readonly waiters = new Map<string, Waiter>();
  private readonly now: () => number;
  private polling?: Promise<void>;
  /** Tasks whose questions are being asked in this wake (a restart asks them again), with their end. */
  private readonly asking = new Map<string, AbortController>();
  private readonly cap: TaskCap;
  private readonly waker: TaskWake;

  constructor(private readonly deps: SessionTasksDeps) {
    this.now = deps.now ?? Date.now;
    this.waker = new TaskWake({ alarm: deps.wakeAt, poll: () => this.poll(), now: this.now, log: deps.log });
    this.cap = new TaskCap({
      rows: deps.rows,
      slots: deps.slots ?? (() => undefined),
      limit: deps.limits?.running ?? TASKS_PER_USER,
      log: deps.log,
      now: this.now,
    });
  }

  /** Holds a task the turn's call `callId` started; resolves with its result when a poll sees it end. */
  async hold(task: StartedTask, call: { callId: string; turnId: string | null }, signal?: AbortSignal): Promise<CallToolResult> {
    const now = this.now();
    const deadlineAt = now + (this.deps.limits?.deadlineMs ?? TASK_DEADLINE_MS);
    const hit = await this.cap.take(task, call.callId, deadlineAt).catch(async (error: unknown) => {
      this.cap.written(call.callId);
      await this.cancelAtServer(task.server, task.taskId);
      throw error;
    });
    if (hit !== undefined) {
      this.cap.written(call.callId);
      await this.cancelAtServer(task.server, task.taskId);
      throw new TaskLimitError(`${task.server}.${task.tool}`, hit);
    }
    const row: TaskRow = {
      ...call,
      server: task.server,
      tool: task.tool,
      taskId: task.taskId,
      status: task.status,
      statusMessage: task.statusMessage ?? null,
      pollIntervalMs: task.pollIntervalMs ?? null,
      polls: 0,
      nextPollAt: now + nextPollMs(task.pollIntervalMs, 0, taskPollFloorMs(0)),
      deadlineAt,
      createdAt: now,
      outcome: null,
    };
    this.deps.rows.insert(row);
    this.cap.written(call.callId);
    this.deps.broadcast(frameOf(row));
    this.waker.at(row.nextPollAt);
    return new Promise<CallToolResult>((resolve, reject) => {
      this.waiters.set(call.callId, { resolve, reject });
      // The turn was stopped: the task is cancelled too, and the turn is not kept waiting for the answer.
      signal?.addEventListener("abort", () => void this.cancel(call.callId).catch(() => undefined), { once: true });
      if (signal?.aborted) void this.cancel(call.callId).catch(() => undefined);
    });
  }

  /** The page's Cancel (the owner's socket): `tasks/cancel` at the server; the next poll sees it cancelled. */
  async cancel(callId: string): Promise<void> {
    const row = this.deps.rows.get(callId);
    if (!row || row.outcome !== null) throw new UnknownTaskError(callId);
    await this.cancelAtServer(row.server, row.taskId);
    // Ended here at once: a server that ignores the cancel is not waited for.
    this.end({ ...row, status: "cancelled" }, { error: "The task was cancelled.", code: "cancelled" });
  }

  /**
   * The held tasks' cards, for a page that (re)connects; their next poll is asked for again
   * too. An alarm can be lost: in local dev, one that fires in a process started after a
   * restart reaches an object that does not know its name, and agents' alarm handler throws
   * until a named request (this connect) woke the object.
   */
  frames(): TaskFrame[] {
    const rows = this.deps.rows.all();
    const next = this.deps.rows.nextDue();
    if (next !== undefined) this.waker.at(next);
    return rows.map(frameOf);
  }

  /** Alarm callback: polls every due task, ends those that ended, and sets the next wake. One at a time. */
  poll(): Promise<void> {
    this.polling ??= this.pollDue().finally(() => {
      this.polling = undefined;
      const next = this.deps.rows.nextDue();
      if (next !== undefined) this.waker.at(next);
    });
    return this.polling;
  }

  /** The session's history was cleared or deleted: its tasks are cancelled and forgotten. */
  async forget(): Promise<void> {
    const rows = this.deps.rows.all();
    this.deps.rows.clear();
    this.cap.free(rows.filter((row) => row.outcome === null).map((row) => row.callId));
    for (const row of rows) {
      this.waiters.get(row.callId)?.reject(new CancelledError(row.server, `${row.tool} task`));
      if (row.outcome === null) await this.cancelAtServer(row.server, row.taskId);
    }
    this.waiters.clear();
  }

  private async pollDue(): Promise<void> {
    await this.cap.renewIfDue();
    const now = this.now();
    const due = this.deps.rows.due(now);
    if (due.length === 0) return;
    const host = await this.deps.host();
    for (const row of due) {
      if (row.outcome !== null) {
        await this.deliver(row, JSON.parse(row.outcome) as Outcome);
        continue;
      }
      if (now >= row.deadlineAt) {
        await this.cancelAtServer(row.server, row.taskId);
        const error = new TaskDeadlineError(`${row.server}.${row.tool}`, row.deadlineAt - row.createdAt);
        this.end({ ...row, status: "cancelled" }, { error: error.message, code: "task_deadline" });
        continue;
      }
      await this.pollOne(host, row, now);
    }
  }

  private async pollOne(host: McpHost, row: TaskRow, now: number): Promise<void> {
    const polls = row.polls + 1;
    try {
      const connection = host.connectionFor(row.server);
      if (!connection) throw new Error(`the server "${row.server}" is no longer in this session`);
      const state = await getTask(await connection.ready(), row.taskId, { timeout: connection.config.timeoutMs });
      const next: TaskRow = {
        ...row,
        status: state.status,
        statusMessage: state.statusMessage ?? null,
        pollIntervalMs: state.pollIntervalMs ?? row.pollIntervalMs,
        polls,
        nextPollAt: now + nextPollMs(state.pollIntervalMs ?? row.pollIntervalMs ?? undefined, polls, taskPollFloorMs(now - row.createdAt)),
      };
      if (row.status === "input_required" && state.status !== "input_required") this.deps.answered?.(row.server);
      if (!TERMINAL_TASK_STATUSES.has(state.status)) {
        this.deps.rows.update(next);
        if (state.status === "input_required" && state.inputRequests) this.ask(host, next, state.inputRequests);
        if (state.status !== row.status || state.statusMessage !== (row.statusMessage ?? undefined)) this.deps.broadcast(frameOf(next));
        return;
      }
      const outcome = taskOutcome(state);
      this.end(next, outcome.ok ? { result: outcome.result } : { error: outcome.error, code: state.status === "cancelled" ? "cancelled" : "protocol" });
    } catch (error) {
      // Unreachable or refusing: asked again later, backing off; the deadline ends it at worst.
      this.deps.log.info("task poll failed", { server: row.server, tool: row.tool, polls, error: errorMessage(error) });
      this.deps.rows.update({ ...row, polls, nextPollAt: now + nextPollMs(undefined, polls) });
    }
  }

  /**
   * An input_required task's questions go to the person as any server's would (owner only,
   * the page's question dialog); the answers go back with tasks/update and the task is
   * polled again at once. Not awaited: a poll never waits for a person.
   */
  private ask(host: McpHost, row: TaskRow, inputRequests: NonNullable<TaskState["inputRequests"]>): void {
    if (this.asking.has(row.callId)) return;
    const controller = new AbortController();
    this.asking.set(row.callId, controller);
    void (async () => {
      const connection = host.connectionFor(row.server);
      if (!connection) return;
      await answerTaskInputs(await connection.ready(), this.deps.questions ?? host.serverRequests, row.server, row.taskId, inputRequests, controller.signal);
      const current = this.deps.rows.get(row.callId);
      if (current && current.outcome === null) {
        this.deps.rows.update({ ...current, nextPollAt: this.now() });
        this.waker.at(this.now());
      }
    })()
      .catch((error: unknown) => this.deps.log.info("task questions failed", { server: row.server, tool: row.tool, error: errorMessage(error) }))
      .finally(() => this.asking.delete(row.callId));
  }

  /** The task ended: its outcome is kept with the row until it reached the model. */
  private end(row: TaskRow, outcome: Outcome): void {
    // A question still open for it is moot now.
    this.asking.get(row.callId)?.abort("the task ended");
    const ended: TaskRow = { ...row, outcome: JSON.stringify(outcome), nextPollAt: this.now() };
    this.deps.rows.update(ended);
    this.cap.free([row.callId]);
    this.deps.broadcast(frameOf(ended));
    const waiter = this.waiters.get(row.callId);
    if (waiter) return void this.settle(ended, waiter, outcome);
    this.waker.at(ended.nextPollAt);
  }

  private settle(row: TaskRow, waiter: Waiter, outcome: Outcome): void {
    this.waiters.delete(row.callId);
    this.deps.rows.delete(row.callId);
    if ("result" in outcome) return waiter.resolve(outcome.result);
    const name = `${row.server}.${row.tool}`;
    waiter.reject(
      outcome.code === "cancelled"
        ? new CancelledError(row.server, `${row.tool} task`)
        : outcome.code === "task_deadline"
          ? new TaskDeadlineError(name, row.deadlineAt - row.createdAt)
          : new ProtocolError(row.server, `${row.tool}: ${outcome.error}`),
    );
  }

  /** An ended task nobody waits for: a follow-up turn tells the model (a cancelled one needs no answer). */
  private async deliver(row: TaskRow, outcome: Outcome): Promise<void> {
    const waiter = this.waiters.get(row.callId);
    if (waiter) return this.settle(row, waiter, outcome);
    if ("error" in outcome && outcome.code === "cancelled") return this.deps.rows.delete(row.callId);
    const started = await this.deps.followUp(followUpEntry(row, outcome)).catch((error: unknown) => {
      this.deps.log.warn("task follow-up failed", { server: row.server, tool: row.tool, error: errorMessage(error) });
      return false;
    });
    if (started) this.deps.rows.delete(row.callId);
    else this.deps.rows.update({ ...row, nextPollAt: this.now() + FOLLOW_UP_RETRY_MS });
  }

  private async cancelAtServer(server: string, taskId: string): Promise<void> {
    try {
      const connection = (await this.deps.host()).connectionFor(server);
      if (connection) await cancelTask(await connection.ready(), taskId, { timeout: connection.config.timeoutMs });
    } catch (error) {
      // The server's ttl ends it at worst; the session stops waiting either way.
      this.deps.log.info("task cancel failed", { server, code: error instanceof EdgehostError ? error.code : undefined, error: errorMessage(error) });
    }
  }
}

/** A turn's call options with its task held by the session, under the call's id (the turn waits on it; a follow-up if the turn is gone). */
export function taskHolder(
  tasks: Pick<SessionTasks, "hold"> | undefined,
  turnId: string,
  options: CallToolOptions | undefined,
): Pick<CallToolOptions, "onTask"> {
  const callId = options?.callId;
  if (!tasks || !callId) return {};
  return { onTask: (task) => tasks.hold(task, { callId, turnId }, options.signal) };
}
