// `npm run dev` owns its processes: a failed start says why in one line and leaves
// nothing; every way of ending it (a signal to npm or to the script, npm dying)
// ends the bridge, its MCP servers, wrangler and workerd; a bridge that dies is
// restarted while the Worker keeps serving. Real npm, wrangler, workerd, bridge and
// server-filesystem throughout; a temp folder stands in for the repo's files.
import { readFileSync, watch, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { attachDevTools } from "../fixtures/devtools";
import { ProbeLog } from "../fixtures/probe-log";
import { filesystemBin, probeServerBin } from "../fixtures/servers";
import { DEV_DEFAULTS } from "../../scripts/lib/dev-output.mjs";
import { DevRun, devScript, portClosed, sandbox, type Sandbox } from "./dev-run";

// The script itself, not the `sh -c node scripts/dev.mjs` npm runs it through.
const devMjs = /^(\S*\/)?node\s.*scripts\/dev\.mjs/;
// The server itself, not wrangler (whose --var MCP_CONFIG names it too).
const fsServer = /^\S+ \S*server-filesystem\/dist\/index\.js /;
const runs: DevRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});
function start(box: Sandbox, how: { npm?: boolean; cwd?: string } = {}): DevRun {
  const run = new DevRun(box, how);
  runs.push(run);
  return run;
}

async function expectAllGone(run: DevRun, box: Sandbox): Promise<void> {
  await run.closed;
  expect(await run.watch.leftovers()).toEqual([]);
  expect(await portClosed(box.port)).toBe(true);
  expect(await portClosed(box.bridgePort)).toBe(true);
}

function readDevVar(path: string, name: string): string {
  const line =
    readFileSync(path, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${name}=`)) ?? "";
  return JSON.parse(line.slice(name.length + 1)) as string;
}

describe("npm run dev: a failed start", () => {
  it("names a missing server folder in one line, exits 1 and leaves no process", async () => {
    const box = await sandbox({ filesystem: { command: process.execPath, args: [filesystemBin, "/nonexistent/edgehost-dev"] } });
    const run = start(box);
    expect((await run.closed).code).toBe(1);
    expect(run.output()).not.toMatch(/ReferenceError|at .*dev\.mjs/);
    expect(run.devLines()).toEqual([
      "[dev] the bridge could not start: MCP servers failed to start: filesystem (exited during startup (exit code 1); last stderr: Warning: Cannot access directory /nonexistent/edgehost-dev, skipping | Error: None of the specified directories are accessible)",
    ]);
    expect(await run.watch.leftovers()).toEqual([]);
  });

  it("names each problem of an invalid mcp.json in one line", async () => {
    const box = await sandbox();
    writeFileSync(box.mcpConfig, '{ "servers": { "a": { "command": 42 }, "b": { "args": 3 } } }');
    const run = start(box);
    expect((await run.closed).code).toBe(1);
    expect(run.devLines()).toEqual([
      "[dev] the bridge could not start: mcp.json:1:34 servers.a.command: expected string; mcp.json:1:55 servers.b.args: expected array of strings",
    ]);
    expect(await run.watch.leftovers()).toEqual([]);
  });

  it("names a taken bridge port, exits 1 and starts no MCP server", async () => {
    const log = new ProbeLog();
    const box = await sandbox({ probe: { command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: log.path } } });
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(box.bridgePort, "127.0.0.1", resolve));
    try {
      const run = start(box);
      expect((await run.closed).code).toBe(1);
      expect(run.devLines()).toEqual([`[dev] the bridge could not start: port ${box.bridgePort} is in use; pass --port or set BRIDGE_PORT`]);
      expect(log.events()).toEqual([]);
      expect(await run.watch.leftovers()).toEqual([]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("names a taken Worker port, exits 1 and starts nothing", async () => {
    const box = await sandbox();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(box.port, "127.0.0.1", resolve));
    try {
      const run = start(box);
      expect((await run.closed).code).toBe(1);
      expect(run.devLines()).toEqual([`[dev] port ${box.port} is in use; stop what holds it or set PORT`]);
      expect(run.watch.processes().map((p) => p.cmd)).toEqual([expect.stringMatching(/scripts\/dev\.mjs/)]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

// Each case starts the whole stack through npm, as a developer or an IDE does.
const endings: { name: string; target: "npm" | "dev.mjs"; signal: NodeJS.Signals; twice?: boolean; says: RegExp }[] = [
  { name: "Ctrl+C (SIGINT to the script)", target: "dev.mjs", signal: "SIGINT", says: /^\[dev\] SIGINT: stopping the Worker and the bridge$/ },
  // From a terminal with npm exec'ing the script, one Ctrl+C arrives twice: still a graceful stop.
  { name: "one Ctrl+C delivered twice", target: "dev.mjs", signal: "SIGINT", twice: true, says: /^\[dev\] SIGINT: stopping the Worker and the bridge$/ },
  { name: "SIGTERM to the script", target: "dev.mjs", signal: "SIGTERM", says: /^\[dev\] SIGTERM: stopping the Worker and the bridge$/ },
  { name: "SIGHUP to the script (terminal closed)", target: "dev.mjs", signal: "SIGHUP", says: /^\[dev\] SIGHUP: stopping the Worker and the bridge$/ },
  // package.json runs `exec node scripts/dev.mjs`, so npm is the script's parent: npm forwards
  // SIGTERM/SIGHUP itself, and a killed npm is seen as the parent going away.
  {
    name: "SIGTERM to npm (what IDEs send)",
    target: "npm",
    signal: "SIGTERM",
    says: /^\[dev\] (SIGTERM: stopping|(the parent process|npm) \(pid \d+\) is gone: stopping) the Worker and the bridge$/,
  },
  {
    name: "SIGHUP to npm",
    target: "npm",
    signal: "SIGHUP",
    says: /^\[dev\] (SIGHUP: stopping|(the parent process|npm) \(pid \d+\) is gone: stopping) the Worker and the bridge$/,
  },
  {
    name: "npm killed (SIGKILL)",
    target: "npm",
    signal: "SIGKILL",
    says: /^\[dev\] (the parent process|npm) \(pid \d+\) is gone: stopping the Worker and the bridge$/,
  },
];

describe("npm run dev: a developer's own settings", () => {
  it("keeps a rate limit set in .dev.vars instead of the dev default", { timeout: 90_000 }, async () => {
    const box = await sandbox();
    writeFileSync(box.devVars, "RATE_LIMIT_BURST=7\n", { mode: 0o600 });
    const run = start(box);
    await run.ready();
    const body = (await (await fetch(`http://127.0.0.1:${box.port}/`)).json()) as { limits: Record<string, string> };
    expect(body.limits).toEqual({ RATE_LIMIT_BURST: "7", RATE_LIMIT_PER_MINUTE: DEV_DEFAULTS.RATE_LIMIT_PER_MINUTE });
    process.kill(run.pidOf(devMjs), "SIGTERM");
    await expectAllGone(run, box);
  });
});

describe("npm run dev: every ending stops everything", () => {
  for (const ending of endings) {
    it(`${ending.name}`, { timeout: 60_000 }, async () => {
      const box = await sandbox();
      const run = start(box, { npm: true });
      await run.ready();
      await run.processesMatching([devMjs, /mcp-local-bridge/, fsServer, /wrangler-dist\/cli\.js/, /workerd serve/]);
      const pid = ending.target === "npm" ? (run.child.pid ?? 0) : run.pidOf(devMjs);
      process.kill(pid, ending.signal);
      if (ending.twice) process.kill(pid, ending.signal);
      await expectAllGone(run, box);
      if (ending.twice) expect(run.output()).toContain('"msg":"stopped","component":"bridge","clean":true');
      expect(run.devLines().filter((l) => ending.says.test(l))).toHaveLength(1);
      expect(run.devLines().at(-1)).toBe("[dev] stopped; nothing left running");
    });
  }

  it("SIGINT to npm, once the dev script execs node (npm forwards it; a `sh -c` in between swallows it)", { timeout: 60_000 }, async () => {
    const box = await sandbox();
    writeFileSync(
      join(box.dir, "package.json"),
      JSON.stringify({ name: "dev-loop", private: true, scripts: { dev: `exec node ${JSON.stringify(devScript)}` } }),
    );
    const run = start(box, { npm: true, cwd: box.dir });
    await run.ready();
    process.kill(run.child.pid ?? 0, "SIGINT");
    await expectAllGone(run, box);
    expect(run.devLines()).toContain("[dev] SIGINT: stopping the Worker and the bridge");
  });
});

describe("npm run dev: while it runs", () => {
  let box: Sandbox;
  let run: DevRun;
  beforeAll(async () => {
    box = await sandbox();
    run = new DevRun(box);
    await run.ready();
    // wrangler builds once at start and again when its watcher is ready: wait for both.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (readFileSync(box.builds, "utf8").split("\n").filter(Boolean).length < 2) return;
        watcher.close();
        resolve();
      };
      const watcher = watch(box.builds, check);
      check();
    });
  }, 90_000);
  afterAll(async () => {
    try {
      process.kill(run.pidOf(devMjs), "SIGTERM");
      await expectAllGone(run, box);
    } finally {
      run?.kill();
    }
  }, 30_000);

  it("starts quietly: no false 'mcp.json changed', no wrangler update notice, no token", () => {
    const output = run.output();
    expect(output).not.toContain("changed, restarting build");
    expect(output).not.toMatch(/update available|wrangler 4\.\d+\.\d+/);
    expect(output).not.toContain(readDevVar(box.devVars, "BRIDGE_TOKEN"));
    expect(output).toContain(`[bridge] mcp-local-bridge generated a bearer token; BRIDGE_TOKEN and BRIDGE_URL are in ${box.devVars} (mode 0600)`);
    expect(output).not.toMatch(/Failed to request (initial )?roots/);
  });

  it("turns wrangler's network tracing off, and DevTools can turn it back on", async () => {
    await run.waitFor(new RegExp(`^\\[dev\\] wrangler's network tracing is off until DevTools attaches to 127\\.0\\.0\\.1:${box.inspectorPort}$`));
    const devtools = await attachDevTools(box.inspectorPort);
    // /bridge?call=N makes a subrequest to the bridge's /metrics?call=N: traced only while Network events are on.
    const bridgeCall = (n: number) => (params: unknown) => (params as { request?: { url?: string } }).request?.url?.endsWith(`/metrics?call=${n}`) === true;
    try {
      expect(await (await fetch(`http://127.0.0.1:${box.port}/bridge?call=1`)).text()).toBe("200");
      await devtools.send("Network.enable");
      expect(await (await fetch(`http://127.0.0.1:${box.port}/bridge?call=2`)).text()).toBe("200");
      await devtools.waitFor("Network.requestWillBeSent", bridgeCall(2));
      // One socket carries the events in order: had tracing been on, call 1's would have come first.
      expect(devtools.events("Network.requestWillBeSent").filter(bridgeCall(1))).toEqual([]);
      await devtools.send("Network.disable");
    } finally {
      devtools.close();
    }
  });

  it("prints no line for a request that worked, one for a failed request and one per turn", async () => {
    const after = run.mark();
    const quiet = `quiet-${crypto.randomUUID()}`;
    const turn = crypto.randomUUID();
    expect((await fetch(`http://127.0.0.1:${box.port}/${quiet}`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${box.port}/turn?id=${turn}`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${box.port}/fail`)).status).toBe(500);
    // wrangler's request lines and the Worker's own come in order on their own channels:
    // once the failed request's lines are out, the earlier requests' would be too.
    await run.waitFor(/^\[worker\] \[wrangler:info\] GET \/fail 500 /, 30_000, after);
    await run.waitFor(/^\[worker\] \{.*"level":"error","msg":"request failed"/, 30_000, after);
    await run.waitFor(new RegExp(`"msg":"turn ended","turnId":"${turn}"`), 30_000, after);
    const lines = run.output().slice(after).split("\n");
    expect(lines.filter((l) => l.includes(quiet) || l.includes("/turn"))).toEqual([]);
    expect(lines.filter((l) => l.includes(turn))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"msg":"request"'))).toEqual([]);
  });

  it("gives the Worker the dev rate limits", async () => {
    const body = (await (await fetch(`http://127.0.0.1:${box.port}/`)).json()) as { limits: Record<string, string> };
    expect(body.limits).toEqual(DEV_DEFAULTS);
    expect(Number(DEV_DEFAULTS.RATE_LIMIT_BURST)).toBeGreaterThanOrEqual(6);
  });

  it("still reports a real change of mcp.json", async () => {
    const after = run.mark();
    writeFileSync(box.mcpConfig, `${readFileSync(box.mcpConfig, "utf8")}\n`);
    await run.waitFor(/^\[worker\] The file mcp\.json changed, restarting build\.\.\.$/, 30_000, after);
  });

  it("restarts a killed bridge on the same port with the same token while the Worker keeps serving", { timeout: 60_000 }, async () => {
    const token = readDevVar(box.devVars, "BRIDGE_TOKEN");
    const worker = run.pidOf(/wrangler-dist\/cli\.js/);
    const bridge = run.pidOf(/mcp-local-bridge/);
    const server = run.pidOf(fsServer);
    expect(await (await fetch(`http://127.0.0.1:${box.port}/bridge`)).text()).toBe("200");

    process.kill(bridge, "SIGKILL");
    await run.waitFor(new RegExp(`^\\[dev\\] the bridge exited \\(SIGKILL\\); restarting it in 1 s on port ${box.bridgePort}, the Worker keeps running$`));
    // Meanwhile the Worker answers (its bridge calls fail until the bridge is back).
    expect((await fetch(`http://127.0.0.1:${box.port}/`)).status).toBe(200);
    await run.waitFor(new RegExp(`^\\[dev\\] bridge restarted on port ${box.bridgePort}$`));

    expect(await (await fetch(`http://127.0.0.1:${box.port}/bridge`)).text()).toBe("200");
    expect(readDevVar(box.devVars, "BRIDGE_TOKEN")).toBe(token);
    expect(run.pidOf(/wrangler-dist\/cli\.js/)).toBe(worker);
    expect(run.watch.find(/./).map((p) => p.pid)).not.toContain(server);
    expect(run.pidOf(fsServer)).not.toBe(server);
    expect(run.pidOf(/mcp-local-bridge/)).not.toBe(bridge);
  });
});
