// Structured logging for the host and the bridge: one JSON object per line.
// Tool arguments and results are only ever passed at debug level.

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface JsonLoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  /** Fields added to every line, e.g. `{ component: "bridge" }`. */
  base?: LogFields;
  now?: () => number;
}

export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const min = rank[options.level ?? "info"];
  const write = options.write ?? ((line: string) => console.log(line));
  const now = options.now ?? Date.now;
  const emit = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    if (rank[level] < min) return;
    write(JSON.stringify({ time: new Date(now()).toISOString(), level, msg, ...options.base, ...fields }));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger whose fields are read at each line (they may be learnt later, e.g. a session's owner). */
export function deferredLogger(get: () => Logger): Logger {
  return {
    debug: (msg, fields) => get().debug(msg, fields),
    info: (msg, fields) => get().info(msg, fields),
    warn: (msg, fields) => get().warn(msg, fields),
    error: (msg, fields) => get().error(msg, fields),
  };
}

/** `logger` with `fields` on every line (a component, a session, a request id). */
export function withFields(logger: Logger, fields: LogFields): Logger {
  return {
    debug: (msg, more) => logger.debug(msg, { ...fields, ...more }),
    info: (msg, more) => logger.info(msg, { ...fields, ...more }),
    warn: (msg, more) => logger.warn(msg, { ...fields, ...more }),
    error: (msg, more) => logger.error(msg, { ...fields, ...more }),
  };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
