// One tools/call from a connected app, under the chat's rules: the name resolved through
// the app's catalogue, the chat's approval policy (a tool that would ask in the chat is asked
// of the person through the client, approval-ask.ts, or held while their page shows the
// question when the client cannot ask, held-approval.ts), the person's rate limit (the
// bucket the console and My servers share), then the call through the app's McpHost with
// the client's cancellation and progress. Failures a model can act on come back as an
// `isError` result; the rest as typed JSON-RPC errors with public messages only.
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { InputRequiredResult } from "@modelcontextprotocol/server";
import { CircuitOpenError, ServerUnavailableError, ToolArgumentsError, ToolNotFoundError, ToolTimeoutError } from "../mcp/errors";
import { isSignInRequired } from "../mcp/oauth/errors";
import { EdgehostError } from "../shared/errors";
import { jsonRpcError, type ErrorCode } from "../shared/error-codes";
import type { ToolView } from "../mcp/capabilities";
import { askApproval, canElicit, hashArgs, type ApprovalAsk } from "./approval-ask";
import type { HeldApprovals } from "./held-approval";
import type { ToolCatalogue } from "./catalogue";
import type { GatewayParts } from "./gateway-parts";
import { withNotes, type Flight } from "./upstream-questions";
import { type CallEndNote, type DecidedCall, flightCall, noteFlight, recordCall } from "./call-record";
import type { ApprovalDecision } from "../orchestrator/transcript";
import { failedEnd } from "../orchestrator/turn";

/** JSON-RPC invalid params: what the spec answers for a tool name the server does not have. */
const INVALID_PARAMS = -32602;

export interface CallContext {
  signal: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** How to ask the person through the client (approval-ask.ts); without it a call that needs approval is refused. */
  ask?: ApprovalAsk;
  /** The app's held questions (held-approval.ts) and the origin its page is at; without it a client that cannot ask is refused. */
  held?: { approvals: HeldApprovals; origin: string };
}

/** A JSON-RPC error a handler throws: the SDK answers with its code, message and data. */
export class GatewayRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export function refusal(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GatewayRpcError {
  const form = jsonRpcError(code, message);
  return new GatewayRpcError(form.code, form.message, { ...form.data, ...extra });
}

const unknownTool = (name: string) => new GatewayRpcError(INVALID_PARAMS, `Unknown tool: ${name}`);

export async function gateCall(
  parts: GatewayParts,
  catalogue: () => ToolCatalogue,
  name: string,
  args: Record<string, unknown>,
  context: CallContext,
): Promise<CallToolResult | InputRequiredResult> {
  const tool = await resolveTool(parts, catalogue, name);
  if (!tool) throw unknownTool(name);
  const started = Date.now();
  let outcome = "ok";
  // The trail's row (call-record.ts): made once the call reached a decision and ended; none while it waits on a question.
  const audit: { call?: DecidedCall; end?: CallEndNote } = {};
  try {
    // A retry that answers a question its server asked during this very call: the same upstream call goes on.
    let flight = context.ask ? await parts.questions.continued(context.ask.lib, parts.store, context.ask.ctx, { tool: tool.qualifiedName, args }) : undefined;
    if (flight === "gone") {
      outcome = "cancelled";
      throw refusal("cancelled", `the call of ${tool.qualifiedName} that asked you a question is not running any more: call it again`, {
        tool: tool.qualifiedName,
      });
    }
    if (flight) audit.call = flightCall(flight);
    if (!flight) {
      const decided = (decision: ApprovalDecision) => {
        audit.call = { callId: crypto.randomUUID(), server: tool.server, tool: tool.name, args, decision, at: started };
        return audit.call;
      };
      const fresh = await startCall(
        parts,
        context,
        tool,
        args,
        (noted) => {
          outcome = noted;
        },
        decided,
      );
      if ("ask" in fresh) {
        outcome = "approval_asked";
        return fresh.ask;
      }
      flight = fresh.flight;
    }
    const round = await flight.round(context.signal, context.onProgress);
    if (round.kind === "ask" && context.ask) {
      outcome = "question_asked";
      return await parts.questions.ask(context.ask.lib, parts.store, flight, round.question, { tool: tool.qualifiedName, args });
    }
    if (round.kind !== "done") throw round.kind === "failed" ? round.error : new Error("a question parked for a client that cannot ask");
    audit.end = { status: round.result.isError ? "tool_error" : "ok", result: round.result };
    const result = withNotes(round.result, flight);
    if (result.isError) outcome = "tool_error";
    return withoutHopMeta(result);
  } catch (error) {
    audit.end ??= endOf(error);
    if (error instanceof GatewayRpcError) throw error;
    const mapped = mapFailure(error, name);
    outcome = mapped instanceof GatewayRpcError ? String((mapped.data as { code?: string } | undefined)?.code ?? mapped.code) : "tool_error";
    if (mapped instanceof GatewayRpcError) throw mapped;
    return mapped;
  } finally {
    // Never the arguments or the result: those are the person's data.
    parts.log.info("gateway call", { tool: tool.qualifiedName, ms: Date.now() - started, outcome });
    if (audit.call && audit.end) {
      recordCall(parts.audit, parts.asker, audit.call, audit.end);
      parts.reporter.send();
    }
  }
}

/** How a call that reached a decision ended when it threw: a refusal by its code, else as a turn's call would (failedEnd). */
function endOf(error: unknown): CallEndNote {
  if (!(error instanceof GatewayRpcError)) return failedEnd(error);
  const code = String((error.data as { code?: string } | undefined)?.code ?? error.code);
  if (code === "denied") return { status: "denied" };
  if (code === "cancelled") return { status: "cancelled" };
  return { status: "error", errorCode: code };
}

/**
 * A fresh call: approval (asked through the client, held, or refused), the rate limit, then
 * the upstream call started as a flight. `ask`: the approval question to return instead.
 * A refusal is thrown, its outcome (for the log line) told through `note`; `decided` is told
 * how the call was decided once it was (a call left waiting for an answer is not).
 */
async function startCall(
  parts: GatewayParts,
  context: CallContext,
  tool: ToolView,
  args: Record<string, unknown>,
  note: (outcome: string) => void,
  decided: (decision: ApprovalDecision) => DecidedCall,
): Promise<{ flight: Flight } | { ask: InputRequiredResult }> {
  // The person's rules for all their chats apply to their apps' calls too: read from the account (the last known if it cannot answer).
  await parts.approvals.mine.refresh();
  const unasked = parts.approvals.decide({ server: tool.server, tool: tool.name, arguments: args, turnId: null });
  const by = parts.asker.person;
  let call: DecidedCall | undefined = unasked ? decided(unasked) : undefined;
  if (!call && (await tookOneShot(context, tool.qualifiedName, args))) call = decided({ allowed: true, how: "asked", answer: "allowed", by, via: "page" });
  if (!call) {
    const asked = context.ask
      ? await askApproval(parts.approvals, context.ask, { server: tool.server, tool: tool.name, qualified: tool.qualifiedName, args })
      : ({ run: false, cannotAsk: true } as const);
    if ("ask" in asked) return { ask: asked.ask };
    if ("denied" in asked) {
      note("denied");
      decided({ allowed: false, how: "asked", answer: "denied", by, via: "client" });
      throw refusal("denied", `You denied ${tool.qualifiedName}: it did not run`, { tool: tool.qualifiedName });
    }
    if ("cannotAsk" in asked && context.held) {
      const held = await holdCall(parts, context, context.held, tool, args);
      note(held.outcome);
      if (held.answer === "allowed" || held.answer === "denied")
        decided({ allowed: held.answer === "allowed", how: "asked", answer: held.answer, by, via: "page" });
      if (held.answer === "cancelled") decided({ allowed: false, how: "asked", answer: "cancelled" });
      if (held.error) throw held.error;
    } else if ("cannotAsk" in asked) {
      note("approval_required");
      throw cannotAsk(tool.qualifiedName);
    } else {
      call = decided({ allowed: true, how: "asked", answer: "allowed", by, via: "client" });
    }
  }
  const settings = parts.runtime.settings;
  const spend = await parts.account().admit("call", { perMinute: settings.RATE_LIMIT_PER_MINUTE, burst: settings.RATE_LIMIT_BURST });
  if (!spend.ok) {
    note(spend.code);
    throw refusal(spend.code, spend.message, "retryAfterMs" in spend ? { retryAfterMs: spend.retryAfterMs } : {});
  }
  await parts.prepare();
  const host = await parts.mcp.readyHost();
  // The flight's own signal and progress: the call outlives this request when its server asks the client a question.
  const canAsk = context.ask ? canElicit(context.ask) : false;
  const flight = parts.questions.start(tool.server, canAsk, (signal, onProgress) =>
    host.callTool(tool.qualifiedName, args, { signal, onProgress: context.onProgress ? onProgress : undefined }),
  );
  if (call) {
    call.ranAt = Date.now();
    noteFlight(flight, call);
  }
  return { flight };
}

/** An approval the page gave after this very call's hold ended (design §2.5 b): taken, the call runs once. */
async function tookOneShot(context: CallContext, qualified: string, args: Record<string, unknown>): Promise<boolean> {
  return context.held ? context.held.approvals.takeOneShot(qualified, await hashArgs(args)) : false;
}

/** A client that cannot ask its person: the call waits while their page shows the question (held-approval.ts). */
async function holdCall(
  parts: GatewayParts,
  context: CallContext,
  held: NonNullable<CallContext["held"]>,
  tool: ToolView,
  args: Record<string, unknown>,
): Promise<{ outcome: string; error?: GatewayRpcError; answer?: "allowed" | "denied" | "cancelled" }> {
  const qualified = tool.qualifiedName;
  const result = await held.approvals.hold({
    appId: parts.appId,
    qualified,
    argsHash: await hashArgs(args),
    question: { server: tool.server, tool: tool.name, arguments: args },
    holdMs: parts.runtime.settings.GATEWAY_HOLD_MS,
    signal: context.signal,
    record: (asked) => parts.account().gatewayQuestionAsk(asked),
    progress: context.onProgress,
  });
  switch (result.kind) {
    case "approved":
      return { outcome: "approved_in_page", answer: "allowed" };
    case "declined":
      return { outcome: "denied", answer: "denied", error: refusal("denied", `You denied ${qualified} in edgehost: it did not run`, { tool: qualified }) };
    case "cancelled":
      return { outcome: "cancelled", answer: "cancelled", error: refusal("cancelled", `the call of ${qualified} was cancelled while it waited for approval`) };
    case "cannot_hold":
      return { outcome: "approval_required", error: cannotAsk(qualified) };
    case "pending": {
      const approveUrl = `${held.origin}/#apps`;
      const message = `Approve ${qualified} in edgehost (${approveUrl}), then call it again with the same arguments`;
      const data = { tool: qualified, approveUrl, questionId: result.questionId, expiresAt: new Date(result.expiresAt).toISOString() };
      return { outcome: "approval_pending", error: refusal("approval_pending", message, data) };
    }
  }
}

const cannotAsk = (qualified: string) =>
  refusal(
    "approval_required",
    `${qualified} needs your approval and this client cannot ask you (no elicitation): allow it in edgehost to use it here (mcp.json's "alwaysAllow", or the server's approval setting in My servers)`,
    { tool: qualified },
  );

/**
 * The tool a client's name means. A name listed from the account's catalogue while this app's
 * connections were still opening may be missing from the list of the servers connected so far:
 * it is looked up again once every connection opened or failed, rather than called unknown.
 */
async function resolveTool(parts: GatewayParts, catalogue: () => ToolCatalogue, name: string): Promise<ToolView | undefined> {
  const tool = catalogue().resolve(name);
  if (tool) return tool;
  await parts.mcp.readyHost().catch(() => undefined);
  return catalogue().resolve(name);
}

/** A call that failed: an `isError` result a model can act on, or a JSON-RPC error. */
function mapFailure(error: unknown, name: string): CallToolResult | GatewayRpcError {
  if (error instanceof ToolArgumentsError) return errorResult(error.message);
  if (error instanceof ServerUnavailableError || error instanceof CircuitOpenError || error instanceof ToolTimeoutError) {
    return errorResult(error.toPublic().message);
  }
  if (isSignInRequired(error)) {
    const server = error instanceof EdgehostError ? error.toPublic().server : undefined;
    return refusal("sign_in_required", `Sign in to ${server ? `"${server}"` : "this server"} in edgehost first (My servers), then call it again`);
  }
  if (error instanceof ToolNotFoundError) return unknownTool(name);
  if (error instanceof EdgehostError) {
    const pub = error.toPublic();
    return refusal(pub.code, pub.message);
  }
  // A refusal the host made itself with a JSON-RPC form (rpcRefusal) keeps it; anything else says nothing internal.
  if (error instanceof Error && "code" in error && typeof error.code === "number" && error.message) return error as GatewayRpcError;
  return refusal("internal", "the call failed inside edgehost");
}

/** The protocol's own `_meta` keys belong to one hop (the upstream's serverInfo, say): this server's SDK sets its own. */
function withoutHopMeta(result: CallToolResult): CallToolResult {
  if (!result._meta) return result;
  const kept = Object.entries(result._meta).filter(([key]) => !key.startsWith("io.modelcontextprotocol/"));
  const { _meta: _dropped, ...rest } = result;
  return kept.length > 0 ? { ...rest, _meta: Object.fromEntries(kept) } : rest;
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });
