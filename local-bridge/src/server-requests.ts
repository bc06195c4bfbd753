// What the child asks its client (sampling, elicitation, roots, ping), carried to the one
// session or 2026 call it is for and the answer carried back (proxy.ts hands them here).
// Over stdio nothing says which call caused a request: the oldest call in flight from a
// session that can take it is the one (user-scope.ts routeServerRequest), never across
// users. Sessions see the bridge's own ids for them, which no session can confuse with
// another's.
import type {
  ClientCapabilities,
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResultResponse,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "@edgehost/shared/logger";
import { rpcError, RPC } from "@edgehost/shared/rpc";
import type { Downstream, Pending, ServerRequest } from "./downstream";
import { taskFeedFor } from "./modern-task-feed";
import { routeServerRequest, type ServerRequestRoute } from "./user-scope";

const CAPABILITY_FOR: Record<string, keyof ClientCapabilities> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

/** What of the proxy the child's requests need. */
export interface RequestHost {
  readonly name: string;
  readonly sessions: ReadonlyMap<string, Downstream>;
  /** Calls in flight at the child, oldest first. */
  inFlight(): Pending[];
  sendToChild(message: JSONRPCMessage): boolean;
  readonly logger: Logger;
  /** Roots written in mcp.json: answered by the bridge itself. */
  readonly roots?: unknown;
  /** The user of a per-user child. */
  readonly owner?: string;
  /** A call began or stopped waiting for its client's answer (ask-gate.ts). */
  asking(): void;
  /** The child asked its clients something (ask-gate.ts: from then on its askable calls take turns). */
  asked(): void;
}

export class ServerRequests {
  private next = 1;
  private readonly open = new Map<string, ServerRequest>();

  constructor(private readonly host: RequestHost) {}

  /** A request of the child: answered here, or given to the session (or 2026 call) it is for. */
  fromChild(request: JSONRPCRequest): void {
    const host = this.host;
    if (request.method === "ping") return void host.sendToChild({ jsonrpc: "2.0", id: request.id, result: {} });
    if (request.method === "roots/list" && host.roots) return void host.sendToChild({ jsonrpc: "2.0", id: request.id, result: { roots: host.roots } });
    host.asked();
    const capability = CAPABILITY_FOR[request.method];
    const capable = [...host.sessions.values()].filter((s) => !capability || s.clientCapabilities[capability] !== undefined);
    // A call waiting for its client's answers is blocked on them: a new question is another call's.
    const all = host.inFlight();
    const active = all.filter((call) => call.session.awaitingClient !== true && (call.asking ?? 0) === 0);
    const inFlight = active.length > 0 ? active : all;
    // A task's question goes to the feed reading that task (modern-task-feed.ts), whichever call is older.
    const feed = taskFeedFor(request.params, capable);
    const route: ServerRequestRoute<Downstream> = feed ? { to: [feed] } : routeServerRequest(capable, inFlight, host.owner);
    if ("refused" in route) {
      host.logger.warn("server request refused", { server: host.name, method: request.method, reason: route.refused });
      if (capability) this.lacking(inFlight, capability);
      return void host.sendToChild(rpcError(request.id, RPC.methodNotFound, route.refused));
    }
    const id = `bridge-${this.next++}`;
    const entry: ServerRequest = { childId: request.id, sessions: new Set() };
    for (const session of route.to) {
      if (session.deliver({ ...request, id }, route.related)) entry.sessions.add(session.id);
    }
    if (entry.sessions.size === 0) {
      if (capability) this.lacking(inFlight, capability);
      const what = capability ? `supports ${capability}` : "can take the request";
      return void host.sendToChild(rpcError(request.id, RPC.methodNotFound, `no connected session ${what}`));
    }
    const cause = route.related === undefined ? undefined : inFlight.find((call) => call.id === route.related && route.to.includes(call.session));
    if (cause) {
      cause.asking = (cause.asking ?? 0) + 1;
      entry.cause = cause;
      host.asking();
    }
    this.open.set(id, entry);
  }

  private settled(request: ServerRequest): void {
    if (!request.cause) return;
    request.cause.asking = Math.max(0, (request.cause.asking ?? 1) - 1);
    request.cause = undefined;
    this.host.asking();
  }

  /** A session's answer to one of them, back to the child under the child's id. */
  answer(session: Downstream, response: JSONRPCResultResponse | JSONRPCErrorResponse): void {
    if (response.id === undefined) return;
    const key = String(response.id);
    const request = this.open.get(key);
    if (!request?.sessions.has(session.id)) return;
    this.open.delete(key);
    this.settled(request);
    this.host.sendToChild({ ...response, id: request.childId } as JSONRPCMessage);
  }

  /** The child withdrew a request it had sent to sessions. */
  withdrawn(notification: JSONRPCNotification): void {
    const params = notification.params as Record<string, unknown> | undefined;
    for (const [id, request] of this.open) {
      if (request.childId !== params?.requestId) continue;
      this.open.delete(id);
      this.settled(request);
      for (const sessionId of request.sessions) this.host.sessions.get(sessionId)?.deliver({ ...notification, params: { ...params, requestId: id } });
    }
  }

  /** The child is gone: the sessions asked are told their question was withdrawn. */
  childGone(): void {
    for (const [id, request] of this.open) {
      for (const sessionId of request.sessions) {
        this.host.sessions.get(sessionId)?.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "server stopped" } });
      }
    }
    this.open.clear();
  }

  /**
   * The child asked for something the call it is taken to come from (the oldest in flight,
   * as routing takes it, and only when all in flight are one user's) cannot answer: a 2026
   * call notes the capability, and answers the revision's missing-capability error should
   * the child then fail the call (modern-call.ts).
   */
  private lacking(inFlight: readonly Pending[], capability: keyof ClientCapabilities): void {
    if (this.host.owner === undefined && new Set(inFlight.map((call) => call.session.user)).size !== 1) return;
    const cause = inFlight[0]?.session;
    if (cause?.clientCapabilities[capability] === undefined) cause?.lacks?.(capability);
  }
}
