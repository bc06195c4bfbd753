// One tool call through a server connection: argument validation, the circuit
// breaker, timeout and cancellation, output validation, metrics, and turning
// whatever went wrong into one of the host's typed errors.
import { isUnreachable, publicFailure } from "./http-failure";
import { ProtocolError as RemoteError, SdkError, SdkErrorCode, SdkHttpError, type CallToolResult } from "@modelcontextprotocol/client";
import { readBridgeError } from "../shared/rpc";
import type { ServerConnection } from "./connection";
import { CancelledError, CircuitOpenError, ProtocolError, ServerUnavailableError, ToolArgumentsError, ToolNotFoundError, ToolTimeoutError } from "./errors";
import { EdgehostError } from "../shared/errors";
import { errorMessage, type Logger } from "../shared/logger";
import { isSignInRequired } from "./oauth/errors";
import { logLevelMeta } from "./log-level";
import { withoutNullOptionals } from "./arguments";
import { retryAfterUrlElicitation, type UrlElicitationRequiredHandler } from "./url-elicitation-required";
import { startedTask, type StartedTask } from "./tasks";
import { waitForTask, type TaskHandler } from "./task-call";

export interface CallToolOptions {
  signal?: AbortSignal;
  /** Overrides the server's `timeout` from mcp.json. */
  timeoutMs?: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The caller's id for this call (a chat session files a held task under it). */
  callId?: string;
  /** The server made the call a task (tasks.ts): what the call's result becomes. Without it the task is polled in memory. */
  onTask?: TaskHandler;
  /** The server refused the call until the person finished at a URL (-32042): asked, then the call is sent once more. */
  urlElicitationRequired?: UrlElicitationRequiredHandler;
}

export async function callTool(
  connection: ServerConnection,
  toolName: string,
  args: Record<string, unknown>,
  options: CallToolOptions,
  logger: Logger,
  available: () => string[],
): Promise<CallToolResult> {
  const answer = await startCall(connection, toolName, args, options, logger, available);
  if ("result" in answer) return answer.result;
  // Past the call's own breaker, stats and timeout: those were for the request that started the task.
  return (options.onTask ?? ((task) => waitForTask(connection, task, { signal: options.signal })))(answer.task);
}

async function startCall(
  connection: ServerConnection,
  toolName: string,
  args: Record<string, unknown>,
  options: CallToolOptions,
  logger: Logger,
  available: () => string[],
): Promise<{ result: CallToolResult } | { task: StartedTask }> {
  let client = await connection.ready();
  const tool = connection.tools.get(toolName);
  if (!tool) throw new ToolNotFoundError(`${connection.name}.${toolName}`, available());
  // An optional argument given as null is left out, not refused (arguments.ts).
  args = withoutNullOptionals(tool.inputSchema, args);
  const issues = tool.validateArguments(args);
  if (issues.length > 0) throw new ToolArgumentsError(tool.qualifiedName, issues);
  const wait = tool.breaker.acquire();
  if (wait > 0) throw new CircuitOpenError(connection.name, toolName, wait);

  const timeoutMs = options.timeoutMs ?? connection.config.timeoutMs;
  const link = linkSignal(options.signal);
  const started = performance.now();
  try {
    if (options.signal?.aborted) throw new CancelledError(connection.name, `${toolName} call`);
    // Through the SDK's callTool so that on a 2026 HTTP connection it mirrors the arguments a tool
    // marks with `x-mcp-header` into `Mcp-Param-*` headers (SEP-2243). The host's paging never
    // fills the SDK's tools/list cache, so the discovered tool goes in as `toolDefinition`, with
    // its input schema only: the SDK checks output against a definition's outputSchema and throws
    // its own errors, while the host checks arguments and output itself (above and below).
    // Only a 2026 connection mirrors headers; a 2025 one keeps the plain request, which costs less
    // per call (callTool compiles the definition's validator on every call): under 200 sessions'
    // load the turn took 1.3x as long through callTool.
    const requestOptions = { signal: link.signal, timeout: timeoutMs, onprogress: options.onProgress };
    const sendOnce = (c: typeof client): Promise<CallToolResult> =>
      c.getProtocolEra() === "modern"
        ? c.callTool(
            { name: toolName, arguments: args, ...logLevelMeta(c) },
            { ...requestOptions, toolDefinition: { name: toolName, inputSchema: tool.inputSchema } },
          )
        : c.request({ method: "tools/call", params: { name: toolName, arguments: args } }, requestOptions);
    const send = (c: typeof client) => retryAfterUrlElicitation(() => sendOnce(c), connection.name, options.urlElicitationRequired, link.signal);
    let result: CallToolResult;
    try {
      result = await send(client);
    } catch (error) {
      // 404 on a request carrying a session id: the server forgot the session (it restarted). The call
      // never ran there, so start a new session (MCP spec) and send it once more.
      if (!(error instanceof SdkHttpError && error.status === 404)) throw error;
      client = await connection.connect();
      result = await send(client);
    }
    // A task's result comes later (task-call.ts); the answer in hand only says it started.
    const task = startedTask(result, connection.name, toolName);
    if (task) {
      connection.stats.record(toolName, performance.now() - started, "ok");
      tool.breaker.success();
      logger.debug("tool call became a task", { server: connection.name, tool: toolName });
      return { task };
    }
    if (tool.validateOutput && !result.isError) {
      // The SDK types it `unknown` (later protocol versions allow any JSON value); an output schema's root is an object.
      const structured = result.structuredContent;
      if (!isObject(structured)) {
        throw new ProtocolError(
          connection.name,
          `${toolName} has an output schema but returned ${structured === undefined ? "no structuredContent" : "structuredContent that is not an object"}`,
        );
      }
      const outputIssues = tool.validateOutput(structured);
      if (outputIssues.length > 0) {
        throw new ProtocolError(
          connection.name,
          `${toolName} returned structuredContent that does not match its output schema: ${outputIssues.map((i) => `${i.path || "(root)"} ${i.message}`).join("; ")}`,
        );
      }
    }
    const ms = performance.now() - started;
    connection.stats.record(toolName, ms, result.isError ? "error" : "ok");
    tool.breaker.success();
    logger.debug("tool call", { server: connection.name, tool: toolName, ms, isError: result.isError === true });
    return { result };
  } catch (error) {
    const translated = translateError(error, connection, toolName, timeoutMs, options.signal);
    const ms = performance.now() - started;
    if (translated instanceof CancelledError) {
      tool.breaker.release();
      connection.stats.record(toolName, ms, "error");
    } else {
      tool.breaker.failure();
      connection.stats.record(toolName, ms, translated instanceof ToolTimeoutError ? "timeout" : "error");
    }
    logger.info("tool call failed", { server: connection.name, tool: toolName, ms, code: translated.code });
    throw translated;
  } finally {
    link.dispose();
  }
}

/**
 * A fresh signal per request that follows the caller's, let go when the request ends.
 * SDK 1.x never removed the abort listener it added (2.4.0 removes it once the request
 * settles); either way a long-lived session signal collects no listeners and never
 * "cancels" requests that finished long ago.
 */
export function linkSignal(signal: AbortSignal | undefined): { signal?: AbortSignal; dispose(): void } {
  if (!signal) return { dispose() {} };
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener("abort", forward, { once: true });
  return { signal: controller.signal, dispose: () => signal.removeEventListener("abort", forward) };
}

/** Maps SDK and transport failures onto typed errors, updating the server's health. */
export function translateError(
  error: unknown,
  connection: ServerConnection,
  what: string | undefined,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): EdgehostError {
  if (isSignInRequired(error)) {
    // A refused refresh, a revoked token, or a step-up to a wider scope: the user signs in again.
    connection.markAuthRequired(errorMessage(error));
    return new ServerUnavailableError(connection.name, `sign in again to use it (${errorMessage(error)})`);
  }
  if (error instanceof EdgehostError) return error;
  if (signal?.aborted) return new CancelledError(connection.name, what ? `${what} call` : "request");
  // A JSON-RPC error the server answered with. Its code is the server's: a -32000 or -32001 from a
  // server is an ordinary error, never the SDK's own timeout or closed connection (those are SdkErrors).
  if (error instanceof RemoteError) {
    // The local bridge answered for a stdio server behind it that is down (crashed, restarting,
    // stopped), by its own codes and data. The bridge itself is reachable, so the connection
    // stays up: the bridge starts the server again on a later request.
    const bridge = readBridgeError(error.code, error.data);
    if (bridge) return new ServerUnavailableError(connection.name, bridge.reason, bridge.retryAfterMs);
    return new ProtocolError(connection.name, error.message, error.code);
  }
  // The SDK's own failures, which never cross the wire. An HTTP status (SdkHttpError) is not
  // among them here: the server answered, with something that is not MCP.
  if (error instanceof SdkError && !(error instanceof SdkHttpError)) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      // The SDK reports an aborted request with the same code; only a timeout carries `data.timeout`.
      if (!isTimeout(error)) return new CancelledError(connection.name, what ? `${what} call` : "request");
      connection.markUnavailable(`${what ?? "a request"} timed out after ${timeoutMs} ms`);
      return new ToolTimeoutError(connection.name, what ?? "request", timeoutMs);
    }
    if (error.code === SdkErrorCode.ConnectionClosed) {
      connection.markUnavailable("connection closed");
      return new ServerUnavailableError(connection.name, "the connection closed during the request", connection.retryAfterMs());
    }
  }
  const message = publicFailure(error);
  if (isUnreachable(error)) {
    connection.markUnavailable(message);
    return new ServerUnavailableError(connection.name, message, connection.retryAfterMs());
  }
  // A result that failed the SDK's schema (SdkError INVALID_RESULT), an HTTP error status, or
  // anything else: the server answered with something MCP does not allow.
  return new ProtocolError(connection.name, message);
}

/** Worth retrying for requests that are safe to repeat. */
export function isTransient(error: unknown): boolean {
  if (error instanceof ServerUnavailableError) return error.retryAfterMs === undefined || error.retryAfterMs === 0;
  if (error instanceof RemoteError) {
    // A stdio server that crashed under the bridge is started again on the next request (after the
    // bridge's backoff, which the retry's own first delay matches); one that waits longer is not worth it.
    const bridge = readBridgeError(error.code, error.data);
    return bridge !== undefined && (bridge.kind === "server_crashed" || (bridge.kind === "server_unavailable" && !bridge.retryAfterMs));
  }
  if (error instanceof SdkError && !(error instanceof SdkHttpError)) {
    return error.code === SdkErrorCode.ConnectionClosed || (error.code === SdkErrorCode.RequestTimeout && isTimeout(error));
  }
  const message = error instanceof Error ? error.message : "";
  return /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up/i.test(message);
}

function isTimeout(error: SdkError): boolean {
  return typeof (error.data as { timeout?: unknown } | undefined)?.timeout === "number";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
