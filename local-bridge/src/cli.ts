// `mcp-local-bridge`: parses flags, loads mcp.json, starts the bridge, watches the
// file, and turns SIGINT/SIGTERM/SIGHUP into a graceful stop whose exit code tells how it
// went (0 clean, 1 startup or config failure, 2 bad usage, 3 a child needed SIGKILL).
import { randomBytes } from "node:crypto";
import { watch } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { EdgehostError } from "@edgehost/shared/errors";
import { createJsonLogger, errorMessage } from "@edgehost/shared/logger";
import { Bridge, ListenError } from "./bridge";
import { loadConfig } from "./config-process";
import { readDevVar, writeDevVars } from "./dev-vars";
import { MAX_RESTART_BACKOFF_MS, parseFlags, USAGE, UsageError, type BridgeFlags } from "./options";

export async function main(argv: string[]): Promise<void> {
  // `connect URL`: pair with a deployment and serve it over an outgoing WebSocket (connect.ts).
  // Loaded on use, from its own bundle (scripts/build.mjs): its WebSocket client and frame
  // schemas stay out of a plain bridge's memory.
  if (argv[0] === "connect") {
    const bundle = "./connect.mjs";
    const { connect } = (await import(bundle)) as typeof import("./connect");
    return connect(argv.slice(1));
  }
  let flags: BridgeFlags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`mcp-local-bridge: ${error.message} (--help lists every flag)\n`);
    process.exit(2);
  }
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const logger = createJsonLogger({ level: flags.logLevel, base: { component: "bridge" }, write: (line) => process.stderr.write(`${line}\n`) });
  const configPath = resolve(flags.config);
  const baseDir = dirname(configPath);
  const devVarsPath = flags.devVars ? resolve(flags.devVars) : join(baseDir, ".dev.vars");

  let config;
  try {
    config = await loadConfig(configPath);
  } catch (error) {
    // One line, like every other start failure: `npm run dev` relays it as the reason.
    process.stderr.write(`mcp-local-bridge could not start: ${errorMessage(error).split("\n").join("; ")}\n`);
    process.exit(1);
  }

  const explicit = flags.token ?? (process.env.BRIDGE_TOKEN || undefined);
  const shared = explicit ? undefined : readDevVar(devVarsPath, "BRIDGE_TOKEN") || undefined;
  const token = explicit ?? shared ?? randomBytes(24).toString("base64url");
  const bridge = new Bridge({
    host: flags.host,
    port: flags.port,
    token,
    baseDir,
    logger,
    allowHosts: flags.allowHosts,
    allowOrigins: flags.allowOrigins,
    maxBodyBytes: flags.maxBodyBytes,
    startupTimeoutMs: flags.startupTimeoutMs,
    shutdownTimeoutMs: flags.shutdownTimeoutMs,
    sessionIdleMs: flags.sessionIdleMs,
    standaloneStream: flags.sseStream,
    backoff: { initialMs: flags.restartBackoffMs, maxMs: Math.max(MAX_RESTART_BACKOFF_MS, flags.restartBackoffMs) },
  });

  let stopping = false;
  let reloading = Promise.resolve();
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
  // Installed before the servers start: a signal during a slow start still stops them.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stop(signal));

  let port: number;
  try {
    port = await bridge.start(config);
  } catch (error) {
    // Stopped while starting: stop() exits once the children are down.
    if (stopping) return;
    const reason = error instanceof EdgehostError || error instanceof ListenError ? error.message : errorMessage(error);
    process.stderr.write(`mcp-local-bridge could not start: ${reason}\n`);
    process.exit(1);
  }
  if (flags.watch) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Watch the folder: editors often replace the file, which ends a watch on the file itself.
    const watcher = watch(baseDir, (_event, file) => {
      if (file !== basename(configPath)) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = reloading.then(async () => {
          try {
            await bridge.reload(await loadConfig(configPath));
          } catch (error) {
            logger.error("mcp.json not reloaded: keeping the running servers", { error: errorMessage(error) });
          }
        });
      }, 150);
    });
    watcher.unref();
  }

  // Printed last: whoever waits for this line may send a signal or edit mcp.json at once.
  const url = `http://${flags.host}:${port}`;
  if (!explicit) {
    // The token itself is never printed: logs and terminal scrollback outlive it.
    try {
      writeDevVars(devVarsPath, { BRIDGE_URL: url, BRIDGE_TOKEN: token });
    } catch (error) {
      process.stderr.write(`mcp-local-bridge could not start: cannot write ${devVarsPath}: ${errorMessage(error)}\n`);
      await bridge.stop();
      process.exit(1);
    }
    const what = shared ? "uses BRIDGE_TOKEN from" : "generated a bearer token; BRIDGE_TOKEN and BRIDGE_URL are in";
    process.stdout.write(`mcp-local-bridge ${what} ${devVarsPath} (mode 0600), read by wrangler dev\n`);
  }
  process.stdout.write(
    `mcp-local-bridge listening on ${url} (servers: ${
      config.servers
        .filter((s) => s.transport === "stdio" && !s.disabled)
        .map((s) => s.name)
        .join(", ") || "none"
    })\n`,
  );
}
