// Whose tasks a shared child runs. Over stdio the child has one session for everyone, so
// its task store (2025 tasks: tasks/get, tasks/result, tasks/cancel, tasks/list, and
// notifications/tasks/status) would show every user's tasks to every session. The proxy
// notes who created each task (the tools/call whose result carried it) and lets only that
// user's sessions and 2026 calls name it, list it or hear of it; for anyone else it does
// not exist. Kept for the task's time to live: a restarted bridge has a new child, whose
// store is empty too.
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { rpcError } from "@edgehost/shared/rpc";
import type { Downstream } from "./downstream";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** What the v1 SDK's task store answers for an id it does not have (JSON-RPC invalid params). */
const INVALID_PARAMS = -32602;
const NAMED = new Set(["tasks/get", "tasks/result", "tasks/cancel"]);
/** A task with no time to live is forgotten after this long (its owner too). */
const UNLIMITED_MS = 24 * 60 * 60_000;
/** Past this many, expired entries are dropped when a task is added. */
const PRUNE_AT = 1_000;

export class TaskOwners {
  private readonly owners = new Map<string, { user: string; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The task's owner, while it is known. */
  ownerOf(taskId: unknown): string | undefined {
    const entry = typeof taskId === "string" ? this.owners.get(taskId) : undefined;
    return entry && entry.expires > this.now() ? entry.user : undefined;
  }

  /** A child's notifications/tasks/status: to its owner's sessions only (a 2026 call takes none). */
  tell(notification: JSONRPCNotification, sessions: Iterable<Downstream>): void {
    const owner = this.ownerOf(notification.params?.taskId);
    if (owner === undefined) return;
    for (const session of sessions) if (session.user === owner) session.deliver(notification);
  }

  /** The answer for a request naming a task that is not `user`'s (as the child answers an unknown task), else undefined. */
  refusal(user: string, request: JSONRPCRequest): JSONRPCMessage | undefined {
    if (!NAMED.has(request.method)) return undefined;
    const taskId = (request.params as Json | undefined)?.taskId;
    if (this.ownerOf(taskId) === user) return undefined;
    return rpcError(request.id, INVALID_PARAMS, "Failed to retrieve task: Task not found");
  }

  /** A response on its way to `user`: notes the task a tools/call created, and keeps only the user's tasks in a tasks/list. */
  seen(user: string, method: string, response: JSONRPCMessage): JSONRPCMessage {
    if (!("result" in response) || !isObject(response.result)) return response;
    const result = response.result;
    if (method === "tools/call" && isObject(result.task) && typeof result.task.taskId === "string") {
      const ttl = typeof result.task.ttl === "number" && result.task.ttl > 0 ? result.task.ttl : UNLIMITED_MS;
      this.add(result.task.taskId, user, ttl);
    }
    if (method === "tasks/list" && Array.isArray(result.tasks)) {
      const tasks = result.tasks.filter((task: unknown) => isObject(task) && this.ownerOf(task.taskId) === user);
      return { ...response, result: { ...result, tasks } };
    }
    return response;
  }

  private add(taskId: string, user: string, ttl: number): void {
    const now = this.now();
    if (this.owners.size >= PRUNE_AT) for (const [id, entry] of this.owners) if (entry.expires <= now) this.owners.delete(id);
    this.owners.set(taskId, { user, expires: now + Math.min(ttl, UNLIMITED_MS) });
  }
}
