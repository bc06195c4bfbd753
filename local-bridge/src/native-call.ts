// One MCP 2026-07-28 request to a child that speaks the revision itself (native-face.ts):
// passed through as it came, `_meta` envelope, `inputResponses` and `requestState`
// included, and the child's answer written back as it came (its `input_required`
// results too: the child's own requestState goes to the client and back untouched).
// The proxy still remaps the id and progress token, so calls of many clients share the
// child's one stdio connection; progress and the log lines the child sends while the
// call is in flight ride on the call's response stream, as for a 2025 child's.
import { randomUUID } from "node:crypto";
import type { ClientCapabilities, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isResponse } from "./messages";
import { ModernReply } from "./modern-call";
import { atOrAbove } from "./modern-log";
import { META, MODERN_ERROR } from "./modern-protocol";
import type { Downstream } from "./downstream";
import type { ServerProxy } from "./proxy";
import type { BridgeResponse } from "./request";

class NativeCall implements Downstream {
  readonly id = `native-${randomUUID()}`;
  finished = false;
  /** The level the request's envelope asked logs at; none asked, none sent. */
  logLevel?: string;

  constructor(
    readonly user: string,
    public clientCapabilities: ClientCapabilities,
    private readonly requestId: RequestId,
    private readonly reply: ModernReply,
    private readonly ended: () => void,
  ) {}

  deliver(message: JSONRPCMessage, related?: RequestId): boolean {
    if (this.finished) return false;
    if (isResponse(message)) {
      if (message.id !== this.requestId) return false;
      this.finished = true;
      this.ended();
      return this.reply.final(message);
    }
    // Progress of this very call; list changes have no request to ride on.
    return related === this.requestId && this.reply.interim(message);
  }

  /** A line of the child while this call is in flight, if the call asked for its level (stdio does not say which call a line is for). */
  logLine(notification: JSONRPCNotification): boolean {
    if (this.finished || this.logLevel === undefined || !atOrAbove(notification.params?.level, this.logLevel)) return false;
    return this.reply.interim(notification);
  }

  close(): void {
    if (this.finished) return;
    this.finished = true;
    this.reply.final({
      jsonrpc: "2.0",
      id: this.requestId,
      error: { code: MODERN_ERROR.internalError, message: "the MCP server behind the bridge was stopped" },
    });
  }
}

export async function serveNative(
  proxy: ServerProxy,
  user: string,
  res: BridgeResponse,
  request: JSONRPCRequest,
  capabilities: ClientCapabilities,
): Promise<void> {
  const reply = new ModernReply(res, request.id);
  const call: NativeCall = new NativeCall(user, capabilities, request.id, reply, () => proxy.sessions.delete(call.id));
  const level = (request.params?._meta as Record<string, unknown> | undefined)?.[META.logLevel];
  if (typeof level === "string") call.logLevel = level; // checked against the levels by envelopeIssue
  reply.onClose(() => {
    // Gone before the answer: the child is told, as a 2025 client's cancellation would.
    if (call.finished) return;
    call.finished = true;
    proxy.cancel(call, request.id, "the client went away");
    proxy.detach(call);
  });
  proxy.sessions.set(call.id, call);
  await proxy.fromSession(call, request);
}
