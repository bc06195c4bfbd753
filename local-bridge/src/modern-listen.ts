// `subscriptions/listen` (MCP 2026-07-28): the one long-lived stream a 2026 client keeps
// open, for the change notifications it opted in to. The 2025 child announces changes to
// every session it has (the bridge's one), and `notifications/resources/updated` only for
// URIs subscribed with `resources/subscribe`: the stream is a Downstream of the proxy like
// a 2025 session, subscribes the child to the URIs it asks for (the proxy counts
// subscribers per URI, so the child hears one subscribe and, after the last stream or
// session goes, one unsubscribe), passes on what the filter lets through with its
// subscription id, and ends with the empty result when the bridge stops the server.
// Tasks extension: the child's `notifications/tasks/status` for a task the stream named in
// `taskIds` go out as `notifications/tasks` with the task as tasks/get shows it (the
// proxy gives the stream only its user's: task-owners.ts), one after another in order.
import type { ClientCapabilities, JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { randomUUID } from "node:crypto";
import { isNotification } from "./messages";
import { META } from "./modern-protocol";
import type { Downstream } from "./proxy";
import type { BridgeResponse } from "./request";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** SSE comments this often keep idle intermediaries from cutting the stream. */
const KEEPALIVE_MS = 15_000;

export interface Filter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks extension: the tasks whose status changes the stream carries. */
  taskIds?: string[];
}

/** Status notifications of the tasks a stream watches: the client's id by the child's, and how a child's task is shown. */
export interface TaskWatch {
  watched: ReadonlyMap<string, string>;
  view(childTask: Json, clientTaskId: string): Promise<Json>;
}

/** What of `asked` the child can honour, from the capabilities it declared at initialize. */
export function honoured(asked: unknown, capabilities: Json): Filter {
  const want = isObject(asked) ? asked : {};
  const flag = (kind: string, key: string) => isObject(capabilities[kind]) && (capabilities[kind] as Json)[key] === true;
  const out: Filter = {};
  if (want.toolsListChanged === true && flag("tools", "listChanged")) out.toolsListChanged = true;
  if (want.promptsListChanged === true && flag("prompts", "listChanged")) out.promptsListChanged = true;
  if (want.resourcesListChanged === true && flag("resources", "listChanged")) out.resourcesListChanged = true;
  const uris = Array.isArray(want.resourceSubscriptions) ? want.resourceSubscriptions.filter((u): u is string => typeof u === "string") : [];
  if (uris.length > 0 && flag("resources", "subscribe")) out.resourceSubscriptions = [...new Set(uris)];
  return out;
}

const PASSES: Record<string, (f: Filter) => boolean> = {
  "notifications/tools/list_changed": (f) => f.toolsListChanged === true,
  "notifications/prompts/list_changed": (f) => f.promptsListChanged === true,
  "notifications/resources/list_changed": (f) => f.resourcesListChanged === true,
  "notifications/resources/updated": (f) => (f.resourceSubscriptions?.length ?? 0) > 0,
};

export class ListenStream implements Downstream {
  readonly id = `listen-${randomUUID()}`;
  clientCapabilities: ClientCapabilities = {};
  private readonly keepalive: ReturnType<typeof setInterval>;
  private ended = false;
  /** Task notifications go out in the order the child sent them, each once its view is read. */
  private taskChain: Promise<void> = Promise.resolve();

  constructor(
    readonly user: string,
    /** The listen request's id: the subscription id. */
    readonly subscription: RequestId,
    readonly filter: Filter,
    private readonly res: BridgeResponse,
    onClose: () => void,
    private readonly tasks?: TaskWatch,
  ) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    this.send({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: filter } });
    this.keepalive = setInterval(() => this.res.write(": keep-alive\n\n"), KEEPALIVE_MS);
    this.keepalive.unref();
    res.on("close", () => {
      clearInterval(this.keepalive);
      this.ended = true;
      onClose();
    });
  }

  private send(notification: JSONRPCMessage & { params?: Json }): boolean {
    if (this.ended || this.res.destroyed || this.res.writableEnded) return false;
    const params = {
      ...notification.params,
      _meta: { ...(isObject(notification.params?._meta) ? notification.params._meta : {}), [META.subscriptionId]: this.subscription },
    };
    this.res.write(`event: message\ndata: ${JSON.stringify({ ...notification, params })}\n\n`);
    return true;
  }

  /** The child's notifications: those the filter lets through. Responses (to the stream's own subscribes) stop here. */
  deliver(message: JSONRPCMessage): boolean {
    if (!isNotification(message)) return true;
    if (message.method === "notifications/tasks/status") return this.taskStatus(message.params);
    const passes = PASSES[message.method];
    if (!passes?.(this.filter)) return false;
    const uri = (message.params as Json | undefined)?.uri;
    if (message.method === "notifications/resources/updated" && !this.filter.resourceSubscriptions?.includes(String(uri))) return false;
    return this.send(message as JSONRPCMessage & { params?: Json });
  }

  private taskStatus(params: Json | undefined): boolean {
    const clientTaskId = this.tasks?.watched.get(String(params?.taskId));
    if (!params || !this.tasks || clientTaskId === undefined) return false;
    const { view } = this.tasks;
    this.taskChain = this.taskChain.then(async () => {
      const task = await view(params, clientTaskId).catch(() => undefined);
      if (task) this.send({ jsonrpc: "2.0", method: "notifications/tasks", params: task });
    });
    return true;
  }

  /** The bridge stops the server: the subscription ends gracefully, with the empty result. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepalive);
    const result = { resultType: "complete", _meta: { [META.subscriptionId]: this.subscription } };
    if (!this.res.destroyed && !this.res.writableEnded)
      this.res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: this.subscription, result })}\n\n`);
  }
}
