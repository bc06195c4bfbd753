// One MCP 2026-07-28 request as the proxy sees it: a Downstream (proxy.ts) that lives for
// one call to the child, over as many HTTP rounds as the call needs. A 2025 child asks its
// client (elicitation, sampling, roots) with a JSON-RPC request; a 2026 client cannot be
// asked that way, so the call answers the round with an `input_required` result that
// carries the question, holds the child's call, and the client's retry (its
// `inputResponses` and the `requestState` minted here) brings the answers to the child
// and takes the call on to its result. Nothing but the call's own result, its questions,
// its progress and the log lines it asked for (modern-log.ts) reaches the client: a 2026
// request has no session to carry the rest.
import { randomUUID } from "node:crypto";
import type { ClientCapabilities, JSONRPCMessage, JSONRPCNotification, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { isErrorResponse, isRequest, isResponse } from "./messages";
import { type CacheHint, NO_CACHE } from "./modern-cache";
import { atOrAbove } from "./modern-log";
import { META, MODERN_ERROR, questionKey } from "./modern-protocol";
import type { Downstream } from "./proxy";
import type { BridgeResponse } from "./request";
import { INPUT_WAIT_MS, mintState, type StateBinding, type StateClaim } from "./modern-state";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Results the revision lets a client cache: they carry `ttlMs` and `cacheScope`. */
const CACHEABLE = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", "server/discover"]);

/** A 2025 result as the 2026 revision writes it: `resultType`, the server's identity in `_meta`, cache hints, no task vocabulary. */
export function modernResult(method: string, result: Json, serverInfo: unknown, cache: { ttlMs: number; cacheScope: "public" | "private" }): Json {
  const out: Json = { ...result, resultType: typeof result.resultType === "string" ? result.resultType : "complete" };
  if (method === "tools/list" && Array.isArray(result.tools))
    out.tools = result.tools.map((tool: unknown) => (isObject(tool) && "execution" in tool ? { ...tool, execution: undefined } : tool));
  if (CACHEABLE.has(method)) {
    if (!(typeof result.ttlMs === "number" && result.ttlMs >= 0)) out.ttlMs = cache.ttlMs;
    if (result.cacheScope !== "public" && result.cacheScope !== "private") out.cacheScope = cache.cacheScope;
  }
  if (serverInfo !== undefined) {
    const meta = isObject(result._meta) ? result._meta : {};
    if (meta[META.serverInfo] === undefined) out._meta = { ...meta, [META.serverInfo]: serverInfo };
  }
  return out;
}

/** One HTTP answer: plain JSON, switched to SSE when something must reach the client before the result. */
export class ModernReply {
  private streaming = false;

  constructor(
    private readonly res: BridgeResponse,
    readonly id: RequestId,
  ) {}

  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  interim(message: JSONRPCMessage): boolean {
    if (!this.open) return false;
    if (!this.streaming) this.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    this.streaming = true;
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return true;
  }

  /** The answer; `status` only when nothing was streamed yet (an SSE answer has sent its 200). */
  final(message: JSONRPCMessage, status = 200): boolean {
    if (!this.open) return false;
    const body = JSON.stringify(message);
    if (this.streaming) this.res.end(`event: message\ndata: ${body}\n\n`);
    else this.res.writeHead(status, { "content-type": "application/json" }).end(body);
    return true;
  }

  onClose(listener: () => void): void {
    this.res.on("close", listener);
  }
}

export interface ModernCallHooks {
  /** Sends the client's answer to a question of the child (a JSON-RPC response with the question's id). */
  answer(response: JSONRPCMessage): void;
  /** The call ended: its result went out, it failed, or it was given up. */
  done(): void;
  /** The client did not come back with answers in time. */
  expired(): void;
  /** Runs `go` when the call may go on at the child beside the calls running there (ask-gate.ts). */
  turn?(go: () => void): void;
  /** The call answered with questions: its call at the child is blocked on its client. */
  blocked?(): void;
}

export class ModernCall implements Downstream {
  readonly id = `modern-${randomUUID()}`;
  readonly stateless = true;
  /** The round whose answers are awaited: a state naming another is stale. */
  private round = 0;
  private reply?: ModernReply;
  private finished = false;
  /** Questions of the child not yet put to the client, and those put and unanswered, by the id the bridge gave them. */
  private readonly queued = new Map<string, Json>();
  private readonly asked = new Map<string, Json>();
  /** The id the proxy gave each question, by its key (the child may name a question: modern-protocol.ts questionKey). */
  private readonly idOf = new Map<string, RequestId>();
  private timer?: ReturnType<typeof setTimeout>;
  /** The level the request's `_meta` asked logs at (`io.modelcontextprotocol/logLevel`); none asked, none sent. */
  logLevel?: string;
  /** What the answer may be cached for: the proxy says, when it sends the request (modern-cache.ts). */
  cacheHint: CacheHint = NO_CACHE;
  /** Capabilities the child asked this call's client for that it did not declare (server-requests.ts). */
  private readonly lacking: Record<string, object> = {};
  /** Rewrites the child's result before it is written as the revision wants (a task-augmented call's: modern-tasks.ts). */
  shape?: (result: Json) => Json;

  constructor(
    readonly user: string,
    public clientCapabilities: ClientCapabilities,
    /** The id the proxy knows the call by (the first round's). */
    readonly requestId: RequestId,
    private readonly method: string,
    private readonly binding: StateBinding,
    private readonly serverInfo: () => unknown,
    private readonly hooks: ModernCallHooks,
  ) {}

  /** Answered with questions and waiting for the client's retry: the child's call is blocked on the answers. */
  get awaitingClient(): boolean {
    return !this.finished && !this.reply && this.asked.size > 0;
  }

  get done(): boolean {
    return this.finished;
  }

  /** Takes a round's HTTP answer (the first, or a retry whose state checked out). */
  attach(reply: ModernReply): void {
    clearTimeout(this.timer);
    this.reply = reply;
    reply.onClose(() => {
      // Gone before the result or a question: the client gave up on the call.
      if (this.reply === reply && !this.finished) this.giveUp();
    });
    this.askIfAny();
  }

  /** A retry: whether its state names this round of a call waiting for answers; then the answers go to the child. */
  resume(claim: StateClaim, inputResponses: unknown, reply: ModernReply): boolean {
    if (this.finished || this.reply || claim.round !== this.round) return false;
    this.round++;
    // The answers wait while another call that can be asked runs at the child (ask-gate.ts):
    // the child's next question after them must be taken for this call alone.
    const go = () => this.answered(inputResponses, reply);
    if (this.hooks.turn) this.hooks.turn(go);
    else go();
    return true;
  }

  private answered(inputResponses: unknown, reply: ModernReply): void {
    const answers = isObject(inputResponses) ? inputResponses : {};
    for (const [key, question] of this.asked) {
      const answer = answers[key];
      this.asked.delete(key);
      if (!isObject(answer)) {
        this.queued.set(key, question); // unanswered: asked again
        continue;
      }
      const { resultType, ...result } = answer;
      this.hooks.answer({ jsonrpc: "2.0", id: this.idOf.get(key) ?? key, result });
      this.idOf.delete(key);
    }
    this.attach(reply);
  }

  deliver(message: JSONRPCMessage, related?: RequestId): boolean {
    if (this.finished) return false;
    if (isResponse(message)) {
      if (message.id !== this.requestId) return false;
      this.finished = true;
      clearTimeout(this.timer);
      const reply = this.reply;
      const answer = reply ? this.translate(message, reply.id) : undefined;
      // The revision sends its missing-capability error with 400 Bad Request.
      const sent =
        reply && answer ? reply.final(answer, isErrorResponse(answer) && answer.error.code === MODERN_ERROR.missingClientCapability ? 400 : 200) : false;
      this.hooks.done();
      return sent;
    }
    if (isRequest(message)) {
      const { key, entry } = questionKey(message, (name) => this.queued.has(name) || this.asked.has(name));
      this.idOf.set(key, message.id);
      this.queued.set(key, entry);
      // Questions the child sends together (Promise.all) come in separate reads of one poll
      // phase: setImmediate runs after them all, in the same turn of the event loop (a
      // microtask ran after the first read only: tried, conformance multiple-input-requests).
      if (this.queued.size === 1) setImmediate(() => this.askIfAny());
      return true;
    }
    // Progress and the like of this very call; list changes and logs have no request to ride on.
    if (related !== this.requestId || !this.reply) return false;
    return this.reply.interim(message);
  }

  logLine(notification: JSONRPCNotification): boolean {
    if (this.finished || !this.reply || this.logLevel === undefined) return false;
    if (!atOrAbove(notification.params?.level, this.logLevel)) return false;
    return this.reply.interim(notification);
  }

  lacks(capability: string): void {
    this.lacking[capability] = {};
  }

  private translate(message: JSONRPCMessage, id: RequestId): JSONRPCMessage {
    // The child failed after asking for what this client cannot give: the revision's error names it.
    if (isErrorResponse(message) && Object.keys(this.lacking).length > 0) {
      const names = Object.keys(this.lacking).join(", ");
      return {
        jsonrpc: "2.0",
        id,
        error: {
          code: MODERN_ERROR.missingClientCapability,
          message: `The server needs client capabilities the request did not declare: ${names} (${message.error.message})`,
          data: { requiredCapabilities: { ...this.lacking } },
        },
      };
    }
    if (isErrorResponse(message)) {
      // The revision answers a missing resource with invalid params, no longer -32002.
      const code = message.error.code === -32002 ? MODERN_ERROR.invalidParams : message.error.code;
      return { ...message, id, error: { ...message.error, code } };
    }
    const given = "result" in message && isObject(message.result) ? message.result : {};
    const result = this.shape ? this.shape(given) : given;
    return { jsonrpc: "2.0", id, result: modernResult(this.method, result, this.serverInfo(), this.cacheHint) };
  }

  /** Answers the round with the child's questions, when there are any and a round to answer. */
  private askIfAny(): void {
    const reply = this.reply;
    if (!reply || this.queued.size === 0) return;
    const inputRequests: Json = {};
    for (const [key, question] of this.queued) {
      inputRequests[key] = question;
      this.asked.set(key, question);
    }
    this.queued.clear();
    const expires = Date.now() + INPUT_WAIT_MS;
    const requestState = mintState({ call: this.id, round: this.round, expires }, this.binding);
    const result = { resultType: "input_required", inputRequests, requestState, _meta: { [META.serverInfo]: this.serverInfo() } };
    this.reply = undefined;
    if (!reply.final({ jsonrpc: "2.0", id: reply.id, result })) return this.giveUp();
    this.timer = setTimeout(() => {
      if (!this.finished && !this.reply) this.hooks.expired();
    }, INPUT_WAIT_MS);
    this.timer.unref();
    this.hooks.blocked?.();
  }

  private giveUp(): void {
    clearTimeout(this.timer);
    this.hooks.expired();
  }

  close(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    this.reply?.final({
      jsonrpc: "2.0",
      id: this.reply.id,
      error: { code: MODERN_ERROR.internalError, message: "the MCP server behind the bridge was stopped" },
    });
    this.reply = undefined;
  }
}
