// `mcp-local-bridge connect URL`: this machine's stdio servers in its owner's edgehost
// sessions, with no open port and no tunnel. Pairs on first use (pairing.ts), starts
// the servers behind the bridge's own handler, which relayed requests reach as objects
// (relay-exchange.ts; nothing listens), and holds one outgoing WebSocket to the
// deployment (relay-client.ts). Exit codes: 0 stopped, 1 could not start or pair,
// 2 bad usage, 4 this machine was removed on the page.
import { randomBytes } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createJsonLogger, errorMessage } from "@edgehost/shared/logger";
import type { McpConfig } from "@edgehost/shared/mcp-config/config";
import { Bridge } from "./bridge";
import { loadConfig } from "./config-process";
import { DEVICE_FILE, forgetDevice, pair, readDevice } from "./pairing";
import { RelayClient } from "./relay-client";
import type { LogLevel } from "./options";

export const CONNECT_USAGE = `usage: mcp-local-bridge connect URL [options]
  URL                    the edgehost deployment, e.g. https://chat.example.com (or http://127.0.0.1:8787)
  --config PATH          mcp.json whose stdio servers to offer (default ./mcp.json)
  --name NAME            the machine's name on the page (default this host's name)
  --device-file PATH     where the device credential is kept (default .edgehost-device.json beside mcp.json, mode 0600)
  --forget               forget this machine's credential and pair again
  --log-level LEVEL      debug | info | warn | error (default info)`;

const say = (line: string): void => void process.stdout.write(`${line}\n`);

function fail(code: number, message: string): never {
  process.stderr.write(`mcp-local-bridge connect: ${message}\n`);
  process.exit(code);
}

function originOf(raw: string | undefined): string {
  if (!raw) fail(2, `a deployment URL is required\n${CONNECT_USAGE}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(2, `"${raw}" is not a URL`);
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) fail(2, "the deployment must be https:// (http:// only on this machine)");
  return url.origin;
}

const stdioNames = (config: McpConfig) => config.servers.filter((s) => s.transport === "stdio" && !s.disabled).map((s) => s.name);

export async function connect(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: "string" },
        name: { type: "string" },
        "device-file": { type: "string" },
        forget: { type: "boolean" },
        "log-level": { type: "string" },
        help: { type: "boolean" },
      },
    });
  } catch (error) {
    fail(2, errorMessage(error));
  }
  if (parsed.values.help) {
    say(CONNECT_USAGE);
    return;
  }
  const origin = originOf(parsed.positionals[0]);
  const level = (parsed.values["log-level"] ?? "info") as LogLevel;
  if (!["debug", "info", "warn", "error"].includes(level)) fail(2, `--log-level must be debug, info, warn or error`);
  const logger = createJsonLogger({ level, base: { component: "bridge", mode: "connect" }, write: (line) => process.stderr.write(`${line}\n`) });
  const configPath = resolve(parsed.values.config ?? "mcp.json");
  const baseDir = dirname(configPath);
  const devicePath = resolve(parsed.values["device-file"] ?? join(baseDir, DEVICE_FILE));

  let config: McpConfig;
  try {
    config = await loadConfig(configPath);
  } catch (error) {
    fail(1, `could not read ${configPath}: ${errorMessage(error).split("\n").join("; ")}`);
  }
  if (parsed.values.forget) forgetDevice(devicePath);
  let device = readDevice(devicePath, origin);
  if (!device) {
    try {
      device = await pair(origin, devicePath, say, parsed.values.name);
    } catch (error) {
      fail(1, errorMessage(error));
    }
    say(`Paired${device.user ? ` to ${device.user}` : ""} as machine "${device.name}". The credential is in ${devicePath} (mode 0600).`);
  }

  // The servers' only door is in memory: the relay below. Nothing listens, not even a socket file.
  const token = randomBytes(24).toString("base64url");
  const bridge = new Bridge({
    host: "127.0.0.1",
    port: 0,
    inMemory: true,
    token,
    baseDir,
    logger,
    allowHosts: [],
    allowOrigins: [],
    maxBodyBytes: 4 * 1024 * 1024,
    startupTimeoutMs: 30_000,
    shutdownTimeoutMs: 10_000,
    sessionIdleMs: 30 * 60_000,
    standaloneStream: false,
    backoff: { initialMs: 1000, maxMs: 30_000 },
  });
  try {
    await bridge.start(config);
  } catch (error) {
    fail(1, `could not start the servers: ${errorMessage(error)}`);
  }

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    relay.stop();
    const clean = await bridge.stop();
    process.exit(code !== 0 ? code : clean ? 0 : 3);
  };
  const relay = new RelayClient({
    origin,
    credential: device.credential,
    handle: (req, res) => bridge.handle(req, res),
    token,
    servers: () => stdioNames(config),
    logger,
    onOnline: () => say(`Online: ${stdioNames(config).join(", ") || "no servers"} of "${device.name}" now serve your sessions at ${origin}.`),
    onRevoked: (why) => {
      forgetDevice(devicePath);
      process.stderr.write(`mcp-local-bridge connect: ${why}\n`);
      void stop(4);
    },
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stop(0));
  relay.start();
}
