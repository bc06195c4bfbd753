// Typed errors of the MCP host, each with a stable `code` and context fields.
import { EdgehostError, type FieldIssue, type PublicError } from "../shared/errors";

export class ServerUnavailableError extends EdgehostError {
  readonly code = "server_unavailable";
  constructor(
    readonly server: string,
    readonly reason: string,
    readonly retryAfterMs?: number,
    /** What made it unavailable (a typed error there keeps its code for the caller: ConnectReport). */
    cause?: unknown,
  ) {
    super(`MCP server "${server}" is unavailable: ${reason}`, cause === undefined ? undefined : { cause });
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, server: this.server, retryAfterMs: this.retryAfterMs };
  }
}

export class ToolNotFoundError extends EdgehostError {
  readonly code = "tool_not_found";
  constructor(
    readonly tool: string,
    readonly available: string[] = [],
  ) {
    super(`Unknown tool "${tool}"`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, tool: this.tool };
  }
}

export class ToolArgumentsError extends EdgehostError {
  readonly code = "tool_arguments";
  constructor(
    readonly tool: string,
    readonly issues: FieldIssue[],
  ) {
    super(`Invalid arguments for ${tool}: ${issues.map((i) => `${i.path || "(root)"}: ${i.message}`).join("; ")}`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, tool: this.tool, issues: this.issues };
  }
}

export class ToolTimeoutError extends EdgehostError {
  readonly code = "tool_timeout";
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly timeoutMs: number,
  ) {
    super(`${server}.${tool} did not answer within ${timeoutMs} ms`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, server: this.server, tool: this.tool };
  }
}

export class CircuitOpenError extends EdgehostError {
  readonly code = "circuit_open";
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly retryAfterMs: number,
  ) {
    super(`${server}.${tool} failed repeatedly; calls are paused for ${Math.ceil(retryAfterMs / 1000)} s`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, server: this.server, tool: this.tool, retryAfterMs: this.retryAfterMs };
  }
}

export class CancelledError extends EdgehostError {
  readonly code = "cancelled";
  constructor(
    readonly server: string,
    readonly what: string,
  ) {
    super(`${what} on "${server}" was cancelled`);
  }
}

/** The server answered, but not with something MCP allows (or it returned a JSON-RPC error). */
export class ProtocolError extends EdgehostError {
  readonly code = "protocol";
  constructor(
    readonly server: string,
    message: string,
    readonly rpcCode?: number,
  ) {
    super(`${server}: ${message}`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, server: this.server };
  }
}

/** A prompt, resource or server that no connected server offers. */
export class NotFoundError extends EdgehostError {
  readonly code = "not_found";
  constructor(
    readonly kind: "prompt" | "resource" | "server",
    readonly item: string,
  ) {
    super(`No ${kind} "${item}"`);
  }
}

/** One or more servers failed to start where every server had to (the bridge, the seed's initialize()). */
