// What the Tasks extension (modern-tasks.ts) asks a 2025 child on its own: one request at a
// time through the proxy, as a one-request Downstream (ids and errors as for any session),
// and which of its tools run as tasks (`execution.taskSupport` in its tools/list), kept per
// child process until the child says its tool list changed.
import { randomUUID } from "node:crypto";
import type { ClientCapabilities, JSONRPCErrorResponse, JSONRPCMessage, JSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js";
import { isNotification, isResponse } from "./messages";
import { childInstance } from "./modern-task-id";
import type { Downstream } from "./downstream";
import type { ServerProxy } from "./proxy";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
export type ChildAnswer = JSONRPCResultResponse | JSONRPCErrorResponse;

/** A task query should take the child a moment; a child that does not answer in this time gets it cancelled. */
const QUERY_TIMEOUT_MS = 30_000;
/** Pages of tools/list read at most, so a child that always hands back a cursor cannot loop the bridge. */
const MAX_PAGES = 50;

class Query implements Downstream {
  readonly id = `task-query-${randomUUID()}`;
  clientCapabilities: ClientCapabilities = {};
  private settle?: (answer: ChildAnswer) => void;
  readonly answer = new Promise<ChildAnswer>((resolve) => {
    this.settle = resolve;
  });

  constructor(readonly user: string) {}

  deliver(message: JSONRPCMessage): boolean {
    if (!isResponse(message)) return false; // progress, logs and questions belong to real clients
    this.settle?.(message);
    return true;
  }

  close(): void {
    this.settle?.({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "the MCP server behind the bridge was stopped" } });
  }
}

/** Sends one request to the child for `user` and resolves with its answer (an error answer when it could not be had). */
export async function askChild(proxy: ServerProxy, user: string, method: string, params: Json): Promise<ChildAnswer> {
  const query = new Query(user);
  const timer = setTimeout(() => proxy.cancel(query, 1, "the bridge gave up waiting"), QUERY_TIMEOUT_MS);
  timer.unref();
  try {
    await proxy.fromSession(query, { jsonrpc: "2.0", id: 1, method, params });
    return await query.answer;
  } finally {
    clearTimeout(timer);
  }
}

interface Catalog {
  instance: string;
  support: Promise<Map<string, string>>;
}
const catalogs = new WeakMap<ServerProxy, Catalog>();
const watched = new WeakSet<ServerProxy>();

/** A tool's `execution.taskSupport` at the running child ("forbidden" when it says none); rejects when its list cannot be read. */
export async function taskSupportOf(proxy: ServerProxy, user: string, tool: string): Promise<string> {
  const instance = childInstance(await proxy.ensureChild());
  let catalog = catalogs.get(proxy);
  if (!watched.has(proxy)) {
    watched.add(proxy);
    proxy.observers.add((message) => {
      if (isNotification(message) && message.method === "notifications/tools/list_changed") catalogs.delete(proxy);
    });
  }
  if (!catalog || catalog.instance !== instance) {
    catalog = { instance, support: readSupport(proxy, user) };
    catalogs.set(proxy, catalog);
    // A failed read is not kept: the next call asks again.
    catalog.support.catch(() => catalogs.delete(proxy));
  }
  return (await catalog.support).get(tool) ?? "forbidden";
}

async function readSupport(proxy: ServerProxy, user: string): Promise<Map<string, string>> {
  const support = new Map<string, string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await askChild(proxy, user, "tools/list", cursor === undefined ? {} : { cursor });
    if (!("result" in answer)) throw new Error(`tools/list failed: ${answer.error.message}`);
    const tools = Array.isArray(answer.result.tools) ? answer.result.tools : [];
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool.name !== "string") continue;
      const execution = isObject(tool.execution) ? tool.execution : {};
      support.set(tool.name, typeof execution.taskSupport === "string" ? execution.taskSupport : "forbidden");
    }
    cursor = typeof answer.result.nextCursor === "string" ? answer.result.nextCursor : undefined;
    if (cursor === undefined) break;
  }
  return support;
}
