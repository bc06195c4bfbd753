// A task's own questions, for the Tasks extension (modern-tasks.ts) over a 2025 child. A
// 2025 task that needs its client (elicitation, sampling) queues the request and sets
// its status to input_required; the queue is given out only to a `tasks/result` reader.
// So while a 2026 client's task is input_required, a feed reads `tasks/result` of it at
// the child, as a Downstream of the proxy with the client's capabilities: the child's
// questions reach it as requests (each under the proxy's id, which is the key the client
// sees in `inputRequests`), `tasks/update` answers them under that id, and the feed ends
// when `tasks/result` does (the task ended) or the child goes. One feed per task, kept in
// memory only while the child runs: a restart loses the task itself too (modern-task-id.ts).
import { randomUUID } from "node:crypto";
import type { ClientCapabilities, JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isRequest, isResponse } from "./messages";
import type { Downstream } from "./downstream";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** The task a child's request says it is for (`_meta` related-task), if any. */
export function relatedTask(params: unknown): string | undefined {
  const meta = isObject(params) && isObject(params._meta) ? params._meta : {};
  const related = meta[RELATED_TASK];
  return isObject(related) && typeof related.taskId === "string" ? related.taskId : undefined;
}

/** How long tasks/get waits for an input_required task's first question to come out of the child's queue. */
const FIRST_QUESTION_MS = 2_000;

export class TaskFeed implements Downstream {
  readonly id = `task-feed-${randomUUID()}`;
  ended = false;
  /** Questions not yet answered, by the id the proxy gave them. */
  readonly questions = new Map<string, Json>();
  private waiters: (() => void)[] = [];

  constructor(
    readonly user: string,
    /** The child's id of the task this feed reads. */
    readonly taskId: string,
    public clientCapabilities: ClientCapabilities,
    private readonly onEnd: () => void,
  ) {}

  deliver(message: JSONRPCMessage, _related?: RequestId): boolean {
    if (this.ended) return false;
    if (isRequest(message)) {
      // Only this task's questions: another call's cannot be answered here.
      if (relatedTask(message.params) !== this.taskId) return false;
      this.questions.set(String(message.id), { method: message.method, ...(message.params ? { params: message.params } : {}) });
      this.wake();
      return true;
    }
    if (isResponse(message)) {
      this.close(); // tasks/result answered: the task ended (or the child went)
      return true;
    }
    const params = (message.params ?? {}) as Json;
    // The child withdrew a question.
    if (message.method === "notifications/cancelled" && this.questions.delete(String(params.requestId))) return true;
    return false;
  }

  /** Resolves once a question is waiting, the feed ended, or the wait is over. */
  async pending(): Promise<void> {
    if (this.questions.size > 0 || this.ended) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FIRST_QUESTION_MS);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.questions.clear();
    this.wake();
    this.onEnd();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** The feed a child's request is for: the one reading the task its `_meta` names (server-requests.ts routes by it). */
export function taskFeedFor(params: unknown, sessions: Iterable<Downstream>): TaskFeed | undefined {
  const taskId = relatedTask(params);
  if (taskId === undefined) return undefined;
  for (const session of sessions) if (session instanceof TaskFeed && session.taskId === taskId && !session.ended) return session;
  return undefined;
}

/** What a feed needs of the server's proxy (proxy.ts), named here so this file does not import it: the proxy's requests import this one. */
export interface FeedProxy {
  readonly sessions: Map<string, Downstream>;
  fromSession(session: Downstream, message: JSONRPCMessage): Promise<void>;
  detach(session: Downstream): void;
}

const feeds = new WeakMap<FeedProxy, Map<string, TaskFeed>>();

/** The feed of a child's task, started (a `tasks/result` read at the child) if there is none. */
export function feedOf(proxy: FeedProxy, user: string, childTaskId: string, capabilities: ClientCapabilities): TaskFeed {
  let byTask = feeds.get(proxy);
  if (!byTask) {
    byTask = new Map();
    feeds.set(proxy, byTask);
  }
  const known = byTask.get(childTaskId);
  if (known && !known.ended) return known;
  const map = byTask;
  const feed: TaskFeed = new TaskFeed(user, childTaskId, capabilities, () => {
    if (map.get(childTaskId) === feed) map.delete(childTaskId);
    proxy.detach(feed);
  });
  map.set(childTaskId, feed);
  proxy.sessions.set(feed.id, feed);
  void proxy.fromSession(feed, { jsonrpc: "2.0", id: 1, method: "tasks/result", params: { taskId: childTaskId } });
  return feed;
}

/** The running feed of a child's task, if any. */
export function runningFeed(proxy: FeedProxy, childTaskId: string): TaskFeed | undefined {
  const feed = feeds.get(proxy)?.get(childTaskId);
  return feed && !feed.ended ? feed : undefined;
}

/** Answers a feed's questions from `inputResponses`; keys it is not waiting on are ignored. */
export async function answerFeed(proxy: FeedProxy, feed: TaskFeed, inputResponses: unknown): Promise<void> {
  if (!isObject(inputResponses)) return;
  for (const [key, answer] of Object.entries(inputResponses)) {
    if (!feed.questions.has(key) || !isObject(answer)) continue;
    feed.questions.delete(key);
    const { resultType, ...result } = answer;
    await proxy.fromSession(feed, { jsonrpc: "2.0", id: key, result });
  }
}
