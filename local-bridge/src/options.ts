// The bridge's command line: node:util parses the flags, zod checks them, and every
// default lives here (the Bridge class takes its options as given), so a bad value
// is refused with one clear line instead of becoming NaN somewhere later.
import { parseArgs } from "node:util";
import { z } from "zod";

export const USAGE = `usage: mcp-local-bridge --config mcp.json [options]
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

interface Range {
  min: number;
  max: number;
  integer: boolean;
  /** Scales the parsed value, e.g. seconds on the command line to ms inside. */
  scale?: number;
}

function numeric(flag: string, { min, max, integer, scale = 1 }: Range) {
  const kind = integer ? "an integer" : "a number";
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  return z.string().transform((text, ctx) => {
    const value = Number(text);
    // Number("") and Number(" ") are 0: an empty flag is a mistake, not zero.
    const valid = text.trim() !== "" && Number.isFinite(value) && (!integer || Number.isInteger(value)) && value >= min && value <= max;
    if (!valid) {
      ctx.issues.push({ code: "custom", input: text, message: `--${flag} must be ${kind} ${range} (got ${JSON.stringify(text)})` });
      return z.NEVER;
    }
    return value * scale;
  });
}

const seconds = (flag: string, min: number) => numeric(flag, { min, max: 365 * 24 * 3600, integer: false, scale: 1000 });
const anyCount = Number.MAX_SAFE_INTEGER;

const FlagsSchema = z.object({
  config: z.string().min(1).prefault("mcp.json"),
  port: numeric("port", { min: 0, max: 65_535, integer: true }).prefault("8808"),
  host: z.string().min(1, "--host must not be empty").prefault("127.0.0.1"),
  token: z.string().min(1, "--token must not be empty").optional(),
  logLevel: z.enum(["debug", "info", "warn", "error"], { error: "--log-level must be debug, info, warn or error" }).prefault("info"),
  watch: z.boolean().prefault(true),
  sseStream: z.boolean().prefault(false),
  allowHosts: z.array(z.string().min(1)).prefault([]),
  allowOrigins: z.array(z.string().min(1)).prefault([]),
  devVars: z.string().min(1).optional(),
  startupTimeoutMs: seconds("startup-timeout", 0.001).prefault("30"),
  shutdownTimeoutMs: seconds("shutdown-timeout", 0).prefault("10"),
  sessionIdleMs: seconds("idle-timeout", 0.001).prefault("1800"),
  maxBodyBytes: numeric("max-body", { min: 1, max: anyCount, integer: true }).prefault("4194304"),
  restartBackoffMs: numeric("restart-backoff", { min: 0, max: 3_600_000, integer: true }).prefault("1000"),
  help: z.boolean().prefault(false),
});

export type BridgeFlags = z.output<typeof FlagsSchema>;

export class UsageError extends Error {}

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
  const portSource = values.port ?? (env.BRIDGE_PORT?.trim() ? env.BRIDGE_PORT : undefined);
  const parsed = FlagsSchema.safeParse({
    config: values.config,
    port: portSource,
    host: values.host,
    token: values.token,
    logLevel: values["log-level"],
    watch: values.watch,
    sseStream: values["sse-stream"],
    allowHosts: values["allow-host"],
    allowOrigins: values["allow-origin"],
    devVars: values["dev-vars"],
    startupTimeoutMs: values["startup-timeout"],
    shutdownTimeoutMs: values["shutdown-timeout"],
    sessionIdleMs: values["idle-timeout"],
    maxBodyBytes: values["max-body"],
    restartBackoffMs: values["restart-backoff"],
    help: values.help,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    let message = issue?.message ?? "invalid options";
    if (issue?.path[0] === "port" && values.port === undefined) message = message.replace("--port", "BRIDGE_PORT");
    throw new UsageError(message);
  }
  return parsed.data;
}
