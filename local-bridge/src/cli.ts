// `mcp-local-bridge`: parses flags, loads mcp.json, starts the bridge, watches the
// file, and turns SIGINT/SIGTERM into a graceful stop whose exit code tells how it
// went (0 clean, 1 startup or config failure, 2 bad usage, 3 a child needed SIGKILL).
import { randomBytes } from "node:crypto";
import { watch } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadMcpConfigFile } from "../../src/mcp/config-file";
import { EdgehostError } from "../../src/mcp/errors";
import { createJsonLogger, errorMessage, type LogLevel } from "../../src/mcp/logger";
import { Bridge } from "./bridge";
import { readDevVar, writeDevVars } from "./dev-vars";

const USAGE = `usage: mcp-local-bridge --config mcp.json [options]
  --config PATH          mcp.json to serve (default ./mcp.json)
  --port N               port to listen on (default 8808; 0 picks a free one)
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
  --restart-backoff MS   first delay before restarting a crashed server; doubles to 30 s (default 1000)`;

export async function main(argv: string[]): Promise<void> {
  let values: ReturnType<typeof parse>["values"];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    process.stderr.write(`${errorMessage(error)}\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const level = (values["log-level"] ?? "info") as LogLevel;
  if (!["debug", "info", "warn", "error"].includes(level)) {
    process.stderr.write(`--log-level must be debug, info, warn or error\n${USAGE}\n`);
    process.exit(2);
  }
  const logger = createJsonLogger({ level, base: { component: "bridge" }, write: (line) => process.stderr.write(`${line}\n`) });
  const configPath = resolve(values.config ?? "mcp.json");
  const baseDir = dirname(configPath);
  const devVarsPath = values["dev-vars"] ? resolve(values["dev-vars"]) : join(baseDir, ".dev.vars");
  const seconds = (flag: string | undefined, fallback: number) => (flag ? Number(flag) * 1000 : fallback);

  let config;
  try {
    config = await loadMcpConfigFile(configPath);
  } catch (error) {
    process.stderr.write(`${errorMessage(error)}\n`);
    process.exit(1);
  }

  const given = values.token ?? process.env.BRIDGE_TOKEN ?? readDevVar(devVarsPath, "BRIDGE_TOKEN");
  const token = given || randomBytes(24).toString("base64url");
  const bridge = new Bridge({
    host: values.host ?? "127.0.0.1",
    port: Number(values.port ?? 8808),
    token,
    baseDir,
    logger,
    allowHosts: values["allow-host"],
    allowOrigins: values["allow-origin"],
    maxBodyBytes: values["max-body"] ? Number(values["max-body"]) : undefined,
    startupTimeoutMs: seconds(values["startup-timeout"], 30_000),
    shutdownTimeoutMs: seconds(values["shutdown-timeout"], 10_000),
    sessionIdleMs: seconds(values["idle-timeout"], 30 * 60_000),
    standaloneStream: values["sse-stream"] ?? false,
    backoff: { initialMs: values["restart-backoff"] ? Number(values["restart-backoff"]) : 1_000, maxMs: 30_000 },
  });

  let port: number;
  try {
    port = await bridge.start(config);
  } catch (error) {
    process.stderr.write(`mcp-local-bridge could not start: ${error instanceof EdgehostError ? error.message : errorMessage(error)}\n`);
    process.exit(1);
  }
  let reloading = Promise.resolve();
  if (values.watch !== false) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Watch the folder: editors often replace the file, which ends a watch on the file itself.
    const watcher = watch(baseDir, (_event, file) => {
      if (file !== basename(configPath)) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = reloading.then(async () => {
          try {
            await bridge.reload(await loadMcpConfigFile(configPath));
          } catch (error) {
            logger.error("mcp.json not reloaded: keeping the running servers", { error: errorMessage(error) });
          }
        });
      }, 150);
    });
    watcher.unref();
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      // A second Ctrl+C means "now": kill the children outright rather than orphan them.
      logger.warn("second signal: killing servers now", { signal });
      bridge.kill();
      process.exit(3);
    }
    stopping = true;
    logger.info("stopping", { signal });
    await reloading;
    const clean = await bridge.stop();
    logger.info("stopped", { clean });
    process.exit(clean ? 0 : 3);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));

  // Printed last: whoever waits for this line may send a signal or edit mcp.json at once.
  const url = `http://${values.host ?? "127.0.0.1"}:${port}`;
  if (!given) {
    writeDevVars(devVarsPath, { BRIDGE_URL: url, BRIDGE_TOKEN: token });
    process.stdout.write(`mcp-local-bridge: generated a token, written to ${basename(devVarsPath)} for wrangler dev:\n  BRIDGE_TOKEN=${token}\n`);
  }
  process.stdout.write(`mcp-local-bridge listening on ${url} (servers: ${config.servers.filter((s) => s.transport === "stdio" && !s.disabled).map((s) => s.name).join(", ") || "none"})\n`);
}

function parse(argv: string[]) {
  return parseArgs({
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
  });
}
