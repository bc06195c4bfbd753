// The base of every typed error in edgehost (Worker and bridge), and the
// mcp.json configuration error both processes report. Each has a stable `code`;
// `toPublic()` is the only shape that may reach a browser or a client: no stack,
// no file paths, no secrets. The codes are the closed set of error-codes.ts.
import type { ErrorCode } from "./error-codes";

export interface FieldIssue {
  /** JSON path of the offending field, e.g. `path` or `edits[0].oldText`. */
  path: string;
  message: string;
}

export interface PublicError {
  code: ErrorCode;
  message: string;
  server?: string;
  tool?: string;
  issues?: FieldIssue[];
  retryAfterMs?: number;
  /** On 401: how this deployment signs in (the page shows its login form for "token"). */
  authMode?: "access" | "token" | "none";
}

export abstract class EdgehostError extends Error {
  abstract readonly code: ErrorCode;
  override get name(): string {
    return this.constructor.name;
  }
  toPublic(): PublicError {
    return { code: this.code, message: this.message };
  }
}

/** The first error in `error`'s cause chain (itself first, 5 deep at most) that `match` accepts. */
export function findCause<T>(error: unknown, match: (e: Error) => e is Error & T): (Error & T) | undefined {
  let e: unknown = error;
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    if (match(e)) return e;
    e = e.cause;
  }
  return undefined;
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

export class StartupError extends EdgehostError {
  readonly code = "startup";
  constructor(readonly failures: { server: string; reason: string }[]) {
    super(`MCP servers failed to start: ${failures.map((f) => `${f.server} (${f.reason})`).join("; ")}`);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message };
  }
}

/** What else an HTTP refusal carries besides its code and message. */
export interface RefusalDetails {
  server?: string;
  tool?: string;
  issues?: FieldIssue[];
  retryAfterMs?: number;
  /** On 401: how this deployment signs in (the page shows its login form for "token"). */
  authMode?: "access" | "token" | "none";
}

/**
 * A request refused with a code of the table: routes and middleware throw it, and the
 * Worker's one `onError` (src/http/errors.ts) answers with the code's status.
 */
export class RequestError extends EdgehostError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: RefusalDetails = {},
  ) {
    super(message);
  }
  /** A refusal another object answered with (a session's RPC outcome), thrown on as the route's answer. */
  static from(pub: PublicError): RequestError {
    const { code, message, ...details } = pub;
    return new RequestError(code, message, details);
  }
  override toPublic(): PublicError {
    return { code: this.code, message: this.message, ...this.details };
  }
}
