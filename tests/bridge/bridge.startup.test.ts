// Starting the bridge: the port is bound before any child starts, flags are
// checked before anything runs, .dev.vars is owner-only and the token is never
// printed, and children hear of roots only from sessions that declared them.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { isAlive } from "../fixtures/host";
import { bridgeBin, childrenOf, connectClient, readDevVarsFile, startBridge, type RunningBridge } from "../fixtures/bridge";
import { ProbeLog } from "../fixtures/probe-log";
import { filesystemBin, probeServerBin } from "../fixtures/servers";

const running: RunningBridge[] = [];
let holder: Server | undefined;
afterEach(async () => {
  await Promise.all(running.splice(0).map((b) => b.stop("SIGKILL")));
  await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
  holder = undefined;
});

async function track(started: Promise<RunningBridge>): Promise<RunningBridge> {
  const bridge = await started;
  running.push(bridge);
  return bridge;
}

const probe = (log: ProbeLog) => ({ command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: log.path } });

/** Runs the CLI to its exit; for runs that must fail before serving anything. */
function runToExit(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [bridgeBin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stderr, stdout })));
}

describe("bridge startup", () => {
  it("binds its port before starting any server: a taken port exits 1, says what to do, and starts no child", async () => {
    holder = createServer();
    const taken = await new Promise<number>((resolve) =>
      holder?.listen(0, "127.0.0.1", () => resolve((holder?.address() as { port: number } | null)?.port ?? 0)),
    );
    const log = new ProbeLog();
    const failing = startBridge({ probe: probe(log) }, ["--port", String(taken)]);
    await expect(failing).rejects.toThrow(
      new RegExp(`exited with 1: mcp-local-bridge could not start: port ${taken} is in use; pass --port or set BRIDGE_PORT\\n$`),
    );
    expect(log.events()).toEqual([]);
  });

  it("refuses bad numeric flags (and BRIDGE_PORT) with one line and exit code 2, before starting anything", async () => {
    const log = new ProbeLog();
    const dir = mkdtempSync(join(tmpdir(), "bridge-flags-"));
    writeFileSync(join(dir, "mcp.json"), JSON.stringify({ servers: { probe: probe(log) } }));
    const config = ["--config", join(dir, "mcp.json")];
    const cases: [string[], Record<string, string>, string][] = [
      [["--port", "abc"], {}, '--port must be an integer from 0 to 65535 (got "abc")'],
      [["--port", "70000"], {}, '--port must be an integer from 0 to 65535 (got "70000")'],
      [[], { BRIDGE_PORT: "eighty" }, 'BRIDGE_PORT must be an integer from 0 to 65535 (got "eighty")'],
      [["--shutdown-timeout=-1"], {}, '--shutdown-timeout must be a number from 0 to 31536000 (got "-1")'],
      [["--startup-timeout", ""], {}, '--startup-timeout must be a number from 0.001 to 31536000 (got "")'],
      [["--max-body", "1.5"], {}, '--max-body must be an integer of at least 1 (got "1.5")'],
      [["--restart-backoff", "1e9"], {}, '--restart-backoff must be an integer from 0 to 3600000 (got "1e9")'],
      [["--log-level", "loud"], {}, "--log-level must be debug, info, warn or error"],
    ];
    for (const [args, env, message] of cases) {
      const run = await runToExit([...config, ...args], env);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: `mcp-local-bridge: ${message} (--help lists every flag)\n` });
    }
    expect(log.events()).toEqual([]);
  });

  it("refuses an invalid mcp.json with exit code 1 and the problem's file:line:column, starting nothing", async () => {
    const log = new ProbeLog();
    const dir = mkdtempSync(join(tmpdir(), "bridge-badconfig-"));
    writeFileSync(join(dir, "mcp.json"), `{ "servers": { "probe": { "command": 42, "env": { "PROBE_LOG": ${JSON.stringify(log.path)} } } } }`);
    const run = await runToExit(["--config", join(dir, "mcp.json"), "--token", "t"]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 1,
      stderr: "mcp-local-bridge could not start: mcp.json:1:38 servers.probe.command: expected string\n",
    });
    const missing = await runToExit(["--config", join(dir, "nope.json"), "--token", "t"]);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 1,
      stderr: "mcp-local-bridge could not start: nope.json:1:1: cannot read the file: file not found\n",
    });
    expect(log.events()).toEqual([]);
  });

  it("expands ${VAR} in mcp.json from its own environment (the parser runs as a short-lived child) and keeps only the servers as children", async () => {
    const log = new ProbeLog();
    const bridge = await track(
      startBridge({ probe: { command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: "${PROBE_LOG_PATH}" } } }, [], {
        env: { PROBE_LOG_PATH: log.path },
      }),
    );
    await log.waitFor((e) => e.event === "start");
    expect(childrenOf(bridge.pid)).toEqual([(await bridge.health()).servers.probe?.pid]);
  });

  it("writes a generated token to .dev.vars with mode 0600, prints only where, and reuses it on the next start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bridge-devvars-"));
    const devVars = join(dir, ".dev.vars");
    writeFileSync(devVars, "GEMINI_API_KEY=keep-me\n", { mode: 0o644 });
    chmodSync(devVars, 0o644);
    const env = { BRIDGE_TOKEN: undefined };
    const first = await track(startBridge({ probe: probe(new ProbeLog()) }, [], { dir, token: false, env }));
    const vars = readDevVarsFile(devVars);
    expect(vars).toMatchObject({ GEMINI_API_KEY: "keep-me", BRIDGE_URL: first.url });
    expect(vars.BRIDGE_TOKEN).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(devVars).mode & 0o777).toBe(0o600);
    expect(first.stdout()).toContain(`generated a bearer token; BRIDGE_TOKEN and BRIDGE_URL are in ${devVars} (mode 0600)`);
    expect(first.stdout() + first.stderr()).not.toContain(vars.BRIDGE_TOKEN);
    expect((await fetch(`${first.url}/metrics`, { headers: { authorization: `Bearer ${vars.BRIDGE_TOKEN}` } })).status).toBe(200);
    expect(await first.stop("SIGTERM")).toBe(0);

    // Loosened in between: the next start tightens it again, keeps the token, updates the URL.
    chmodSync(devVars, 0o644);
    const second = await track(startBridge({ probe: probe(new ProbeLog()) }, [], { dir, token: false, env }));
    expect(second.token).toBe(vars.BRIDGE_TOKEN);
    expect(readDevVarsFile(devVars)).toEqual({ GEMINI_API_KEY: "keep-me", BRIDGE_URL: second.url, BRIDGE_TOKEN: vars.BRIDGE_TOKEN });
    expect(statSync(devVars).mode & 0o777).toBe(0o600);
    expect(second.stdout()).toContain(`uses BRIDGE_TOKEN from ${devVars}`);
    expect(second.stdout() + second.stderr()).not.toContain(vars.BRIDGE_TOKEN);
  });

  it("does not tell a server the client has roots when no session declared them", async () => {
    const root = mkdtempSync(join(tmpdir(), "bridge-roots-"));
    const bridge = await track(startBridge({ fs: { command: process.execPath, args: [filesystemBin, root] } }));
    await bridge.waitForLog(/Client does not support MCP Roots, using allowed directories set from server args/);
    expect(bridge.stderr()).not.toMatch(/Failed to request (initial )?roots/);
  });

  it("advertises roots to a restarted child while a session that declared them is attached, and that session answers", async () => {
    const [first, second] = [mkdtempSync(join(tmpdir(), "bridge-roots-")), mkdtempSync(join(tmpdir(), "bridge-roots-"))];
    const bridge = await track(startBridge({ fs: { command: process.execPath, args: [filesystemBin, first] } }, ["--restart-backoff", "0"]));
    const { client } = await connectClient(bridge, "fs", { roots: { listChanged: true } });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: `file://${second}`, name: "second" }] }));
    const pid = (await bridge.health()).servers.fs?.pid ?? 0;
    process.kill(pid, "SIGKILL");
    await bridge.waitForLog(/"msg":"server unavailable"/);
    // This call restarts the child; its roots/list rides on the call's own response stream.
    await client.callTool({ name: "list_allowed_directories", arguments: {} });
    await bridge.waitForLog(/Updated allowed directories from MCP roots: 1 valid directories/);
    const listed = await client.callTool({ name: "list_allowed_directories", arguments: {} });
    expect(JSON.stringify(listed.content)).toContain(second);
    expect(JSON.stringify(listed.content)).not.toContain(first);
    expect(isAlive(pid)).toBe(false);
    expect(childrenOf(bridge.pid)).toHaveLength(1);
    await client.close();
  });
});
