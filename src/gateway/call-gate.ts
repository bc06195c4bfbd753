// One tools/call from a connected app, under the chat's rules: the name resolved through
// the app's catalogue, the chat's approval policy (a tool that would ask in the chat is asked
// of the person through the client, approval-ask.ts, or refused when the client cannot ask), the person's rate limit (the
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
import { askApproval, type ApprovalAsk } from "./approval-ask";
import type { ToolCatalogue } from "./catalogue";
import type { GatewayParts } from "./gateway-parts";

/** JSON-RPC invalid params: what the spec answers for a tool name the server does not have. */
const INVALID_PARAMS = -32602;

export interface CallContext {
  signal: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** How to ask the person through the client (approval-ask.ts); without it a call that needs approval is refused. */
  ask?: ApprovalAsk;
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
  try {
    if (parts.approvals.needsApproval(tool.server, tool.name)) {
      const asked = context.ask
        ? await askApproval(parts.approvals, context.ask, { server: tool.server, tool: tool.name, qualified: tool.qualifiedName, args })
        : ({ run: false, cannotAsk: true } as const);
      if ("ask" in asked) {
        outcome = "approval_asked";
        return asked.ask;
      }
      if ("denied" in asked) {
        outcome = "denied";
        throw refusal("denied", `You denied ${tool.qualifiedName}: it did not run`, { tool: tool.qualifiedName });
      }
      if ("cannotAsk" in asked) {
        outcome = "approval_required";
        throw refusal(
          "approval_required",
          `${tool.qualifiedName} needs your approval and this client cannot ask you (no elicitation): allow it in edgehost to use it here (mcp.json's "alwaysAllow", or the server's approval setting in My servers)`,
          { tool: tool.qualifiedName },
        );
      }
    }
    const settings = parts.runtime.settings;
    const spend = await parts.account().admit("call", { perMinute: settings.RATE_LIMIT_PER_MINUTE, burst: settings.RATE_LIMIT_BURST });
    if (!spend.ok) {
      outcome = spend.code;
      throw refusal(spend.code, spend.message, "retryAfterMs" in spend ? { retryAfterMs: spend.retryAfterMs } : {});
    }
    await parts.prepare();
    const host = await parts.mcp.readyHost();
    const result = await host.callTool(tool.qualifiedName, args, { signal: context.signal, onProgress: context.onProgress });
    if (result.isError) outcome = "tool_error";
    return withoutHopMeta(result);
  } catch (error) {
    if (error instanceof GatewayRpcError) throw error;
    const mapped = mapFailure(error, name);
    outcome = mapped instanceof GatewayRpcError ? String((mapped.data as { code?: string } | undefined)?.code ?? mapped.code) : "tool_error";
    if (mapped instanceof GatewayRpcError) throw mapped;
    return mapped;
  } finally {
    // Never the arguments or the result: those are the person's data.
    parts.log.info("gateway call", { tool: tool.qualifiedName, ms: Date.now() - started, outcome });
  }
}

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
