// One tools/call from a connected app, under the chat's rules: the name resolved through
// the app's catalogue, the chat's approval policy (this round a tool that would ask in the
// chat is refused, never run: approvals at /mcp come next), the person's rate limit (the
// bucket the console and My servers share), then the call through the app's McpHost with
// the client's cancellation and progress. Failures a model can act on come back as an
// `isError` result; the rest as typed JSON-RPC errors with public messages only.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { CircuitOpenError, ServerUnavailableError, ToolArgumentsError, ToolNotFoundError, ToolTimeoutError } from "../mcp/errors";
import { isSignInRequired } from "../mcp/oauth/errors";
import { EdgehostError } from "../shared/errors";
import { jsonRpcError, type ErrorCode } from "../shared/error-codes";
import type { ToolCatalogue } from "./catalogue";
import type { GatewayParts } from "./gateway-parts";

/** JSON-RPC invalid params: what the spec answers for a tool name the server does not have. */
const INVALID_PARAMS = -32602;

export interface CallContext {
  signal: AbortSignal;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
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
  catalogue: ToolCatalogue,
  name: string,
  args: Record<string, unknown>,
  context: CallContext,
): Promise<CallToolResult> {
  const tool = catalogue.resolve(name);
  if (!tool) throw unknownTool(name);
  const started = Date.now();
  let outcome = "ok";
  try {
    if (parts.approvals.needsApproval(tool.server, tool.name)) {
      outcome = "approval_required";
      throw refusal(
        "approval_required",
        `${tool.qualifiedName} needs your approval, and approvals at /mcp are not available yet: allow it in edgehost (mcp.json's "alwaysAllow", or the server's entry in My servers) to use it here`,
        { tool: tool.qualifiedName },
      );
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
    return result;
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

const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });
