// Typed errors of the MCP host. Each has a stable `code` and context fields;
// `toPublic()` is the only shape that may reach a browser: it carries no stack,
// no file paths and no secrets.

export interface FieldIssue {
  /** JSON path of the offending field, e.g. `path` or `edits[0].oldText`. */
  path: string;
  message: string;
}

export interface PublicError {
  code: string;
  message: string;
  server?: string;
  tool?: string;
  issues?: FieldIssue[];
  retryAfterMs?: number;
}

export abstract class EdgehostError extends Error {
  abstract readonly code: string;
  override get name(): string {
    return this.constructor.name;
  }
  toPublic(): PublicError {
    return { code: this.code, message: this.message };
  }
}

export interface ConfigIssue {
  file: string;
  line: number;
  column: number;
  /** JSON path, e.g. `servers.fs.args[1]`; empty for the document itself. */
  path: string;
  message: string;
}

/** One or more problems in mcp.json, each located by file:line:column and JSON path. */
export class ConfigError extends EdgehostError {
  readonly code = "config";
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map(formatConfigIssue).join("\n"));
  }
  override toPublic(): PublicError {
    // File names are the user's own mcp.json name, never an absolute path.
    return { code: this.code, message: this.message };
  }
}

export function formatConfigIssue(issue: ConfigIssue): string {
  const where = issue.path ? ` ${issue.path}` : "";
  return `${issue.file}:${issue.line}:${issue.column}${where}: ${issue.message}`;
}

export class ServerUnavailableError extends EdgehostError {
  readonly code = "server_unavailable";
  constructor(
    readonly server: string,
    readonly reason: string,
    readonly retryAfterMs?: number,
  ) {
    super(`MCP server "${server}" is unavailable: ${reason}`);
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
  constructor(readonly server: string, readonly what: string) {
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
export class StartupError extends EdgehostError {
  readonly code = "startup";
  constructor(readonly failures: { server: string; reason: string }[]) {
    super(`MCP servers failed to start: ${failures.map((f) => `${f.server} (${f.reason})`).join("; ")}`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message };
  }
}
