// The bridge's command line: node:util parses the flags, plain checks validate them
// (no zod: it would stay in the bridge's memory for a few lines of checking), and every
// default lives here (the Bridge class takes its options as given), so a bad value is
// refused with one clear line instead of becoming NaN somewhere later.
import { parseArgs } from "node:util";

export const USAGE = `usage: mcp-local-bridge --config mcp.json [options]
       mcp-local-bridge connect URL [--config mcp.json]   (pair with a deployment; see connect --help)
  --config PATH          mcp.json to serve (default ./mcp.json)
  --port N               port to listen on (default BRIDGE_PORT, else 8808; 0 picks a free one)
  --host ADDR            address to bind (default 127.0.0.1)
  --token T              bearer token (else BRIDGE_TOKEN, else .dev.vars, else generated)
  --log-level LEVEL      debug | info | warn | error (default info)
  --no-watch             do not reload when mcp.json changes
  --sse-stream           offer the standalone GET SSE stream (off: it keeps Durable Objects awake)
  --allow-host HOST      accept this Host header too (e.g. a tunnel's hostname); repeatable
  --allow-origin ORIGIN  accept this Origin too; repeatable
  --dev-vars PATH        where to share BRIDGE_URL/BRIDGE_TOKEN with wrangler (default .dev.vars next to mcp.json)
  --startup-timeout S    seconds a server may take to initialize (default 30)
  --shutdown-timeout S   seconds between SIGTERM and SIGKILL on stop (default 10)
  --idle-timeout S       seconds before an idle session expires (default 1800)
  --max-body BYTES       request body limit (default 4194304)
  --restart-backoff MS   first delay before restarting a crashed server; doubles up to 30 s (default 1000)`;

/** Longest delay between restarts of a crashed server, unless --restart-backoff starts higher. */
export const MAX_RESTART_BACKOFF_MS = 30_000;

export type LogLevel = "debug" | "info" | "warn" | "error";
const LOG_LEVELS: readonly string[] = ["debug", "info", "warn", "error"];

export interface BridgeFlags {
  config: string;
  port: number;
  host: string;
  token?: string;
  logLevel: LogLevel;
  watch: boolean;
  sseStream: boolean;
  allowHosts: string[];
  allowOrigins: string[];
  devVars?: string;
  startupTimeoutMs: number;
  shutdownTimeoutMs: number;
  sessionIdleMs: number;
  maxBodyBytes: number;
  restartBackoffMs: number;
  help: boolean;
}

export class UsageError extends Error {}

interface Range {
  min: number;
  max: number;
  integer: boolean;
  /** Scales the parsed value, e.g. seconds on the command line to ms inside. */
  scale?: number;
}

const ANY_COUNT = Number.MAX_SAFE_INTEGER;
const YEAR_S = 365 * 24 * 3600;

/** `text` (or `fallback` when absent) as a number in range; `name` is what the message calls it. */
function numeric(name: string, text: string | undefined, fallback: string, { min, max, integer, scale = 1 }: Range): number {
  const input = text ?? fallback;
  const value = Number(input);
  // Number("") and Number(" ") are 0: an empty flag is a mistake, not zero.
  const valid = input.trim() !== "" && Number.isFinite(value) && (!integer || Number.isInteger(value)) && value >= min && value <= max;
  if (!valid) {
    const kind = integer ? "an integer" : "a number";
    const range = max === ANY_COUNT ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${name} must be ${kind} ${range} (got ${JSON.stringify(input)})`);
  }
  return value * scale;
}

function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value === "") throw new UsageError(`--${flag} must not be empty`);
  return value;
}

const seconds = (flag: string, text: string | undefined, fallback: string, min: number) =>
  numeric(`--${flag}`, text, fallback, { min, max: YEAR_S, integer: false, scale: 1000 });

/** Parses and checks argv; `env` supplies BRIDGE_PORT. Throws UsageError with a one-line reason. */
export function parseFlags(argv: string[], env: Record<string, string | undefined> = process.env): BridgeFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      allowNegative: true,
      options: {
        config: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        token: { type: "string" },
        "log-level": { type: "string" },
        watch: { type: "boolean" },
        "sse-stream": { type: "boolean" },
        "allow-host": { type: "string", multiple: true },
        "allow-origin": { type: "string", multiple: true },
        "dev-vars": { type: "string" },
        "startup-timeout": { type: "string" },
        "shutdown-timeout": { type: "string" },
        "idle-timeout": { type: "string" },
        "max-body": { type: "string" },
        "restart-backoff": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const envPort = env.BRIDGE_PORT?.trim() ? env.BRIDGE_PORT : undefined;
  const logLevel = values["log-level"] ?? "info";
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError("--log-level must be debug, info, warn or error");
  const list = (flag: string, items: string[] | undefined) => (items ?? []).map((item) => nonEmpty(flag, item) ?? "");
  return {
    config: nonEmpty("config", values.config) ?? "mcp.json",
    port: numeric(values.port === undefined && envPort !== undefined ? "BRIDGE_PORT" : "--port", values.port ?? envPort, "8808", {
      min: 0,
      max: 65_535,
      integer: true,
    }),
    host: nonEmpty("host", values.host) ?? "127.0.0.1",
    token: nonEmpty("token", values.token),
    logLevel: logLevel as LogLevel,
    watch: values.watch ?? true,
    sseStream: values["sse-stream"] ?? false,
    allowHosts: list("allow-host", values["allow-host"]),
    allowOrigins: list("allow-origin", values["allow-origin"]),
    devVars: nonEmpty("dev-vars", values["dev-vars"]),
    startupTimeoutMs: seconds("startup-timeout", values["startup-timeout"], "30", 0.001),
    shutdownTimeoutMs: seconds("shutdown-timeout", values["shutdown-timeout"], "10", 0),
    sessionIdleMs: seconds("idle-timeout", values["idle-timeout"], "1800", 0.001),
    maxBodyBytes: numeric("--max-body", values["max-body"], "4194304", { min: 1, max: ANY_COUNT, integer: true }),
    restartBackoffMs: numeric("--restart-backoff", values["restart-backoff"], "1000", { min: 0, max: 3_600_000, integer: true }),
    help: values.help ?? false,
  };
}
