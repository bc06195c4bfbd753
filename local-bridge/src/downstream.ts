// What the proxy (proxy.ts) keeps of the other side of the bridge: the sessions (and 2026
// calls) it serves, their requests in flight at the child, and the child's own requests
// waiting for a session's answer.
import type { ClientCapabilities, JSONRPCMessage, JSONRPCNotification, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { CacheHint } from "./modern-cache";

/** A connected HTTP session (Streamable HTTP or legacy SSE, or one 2026 call: modern-call.ts), as the proxy sees it. */
export interface Downstream {
  readonly id: string;
  /** Whose session this is (user-scope.ts): the Worker's user id, or "" for a local client. */
  readonly user: string;
  clientCapabilities: ClientCapabilities;
  /** Negotiated at initialize (Streamable HTTP sessions use it to decide on priming events). */
  protocolVersion?: string;
  /** Sends to the client; `related` is the session's own request the message belongs to. False if undeliverable. */
  deliver(message: JSONRPCMessage, related?: RequestId): boolean;
  /** A 2026 call only (modern-log.ts): takes a log line of the child while in flight, if it asked for that level. */
  logLine?(notification: JSONRPCNotification): boolean;
  /** A 2026 call only (server-requests.ts): the child asked it for a capability its client did not declare. */
  lacks?(capability: keyof ClientCapabilities): void;
  /** A 2026 call only: the cache hint its answer carries, set by the proxy when it sends the request (modern-cache.ts). */
  cacheHint?: CacheHint;
  /** A 2026 call only: it answered with questions and waits for the client's retry, so its call at the child is blocked. */
  readonly awaitingClient?: boolean;
  /** A 2026 call (one request, no session): its questions must not be taken for another's (ask-gate.ts). */
  readonly stateless?: boolean;
  /** A 2026 call only: it ended. */
  readonly done?: boolean;
  close(): void;
}

export interface Pending {
  session: Downstream;
  id: RequestId;
  method: string;
  tool?: string;
  started: number;
  progressToken?: string | number;
  /** Questions of the child taken to be this call's and not yet answered: the call is blocked on its client (ask-gate.ts). */
  asking?: number;
}

export interface ServerRequest {
  childId: RequestId;
  sessions: Set<string>;
  /** The call it is taken to be for, while unanswered. */
  cause?: Pending;
}
