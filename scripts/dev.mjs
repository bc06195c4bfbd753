#!/usr/bin/env node
// `npm run dev`: the local bridge (stdio MCP servers from mcp.json), then `wrangler
// dev` once the bridge has written its URL and token to .dev.vars, their output
// prefixed. This script owns both process trees: each child leads its own process
// group and is killed as a group, whatever ends this script (Ctrl+C, SIGTERM from an
// IDE, SIGHUP from a closed terminal, npm dying). A bridge that dies is restarted on
// the same port with the same token (.dev.vars) while the Worker keeps running.
//
// wrangler's runtime Network tracing is turned off once the Worker is up and after
// each reload (lib/dev-network-events.mjs says why); a DevTools client that shows
// network requests turns it on again itself.
//
// The Worker's output is kept to what a developer needs: no line per request (only a
// failed one), warnings, errors, one line per turn; and it runs with dev-only rate
// limits a person typing fast stays within (lib/dev-output.mjs).
//
// Environment: PORT (8787), BRIDGE_PORT (8808), INSPECTOR_PORT (9229, or a free one
// when that is taken), EDGEHOST_MCP_CONFIG (./mcp.json),
// EDGEHOST_DEV_VARS (.dev.vars next to the wrangler config), EDGEHOST_WRANGLER_CONFIG
// (./wrangler.toml). Tests use the last three to keep the repo's files untouched.
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { setNetworkEvents } from "./lib/dev-network-events.mjs";
import { DEV_DEFAULTS, devVarNames, showWorkerLine } from "./lib/dev-output.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const wranglerBin = join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
const bridgeBin = join(root, "local-bridge", "bin", "mcp-local-bridge.mjs");

// The terminal may be gone (SIGHUP): a failed write must not crash this script
// before it has stopped its children.
process.stdout.on("error", () => undefined);
process.stderr.on("error", () => undefined);
const say = (line) => process.stderr.write(`[dev] ${line}\n`);

function portFrom(name, fallback) {
  const text = process.env[name]?.trim() || fallback;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) {
    say(`${name} must be a port number (got ${JSON.stringify(text)})`);
    process.exit(2);
  }
  return text;
}
const port = portFrom("PORT", "8787");
let bridgePort = portFrom("BRIDGE_PORT", "8808");
const inspectorPortSet = process.env.INSPECTOR_PORT?.trim() ? portFrom("INSPECTOR_PORT", "9229") : undefined;
let inspectorPort = inspectorPortSet ?? "9229";
const wranglerConfig = resolve(process.env.EDGEHOST_WRANGLER_CONFIG || join(root, "wrangler.toml"));
const workerDir = dirname(wranglerConfig);
const mcpConfig = resolve(process.env.EDGEHOST_MCP_CONFIG || join(root, "mcp.json"));
const devVars = resolve(process.env.EDGEHOST_DEV_VARS || join(workerDir, ".dev.vars"));

const env = {
  ...process.env,
  // Offline-friendly wrangler: no metrics upload, no request.cf fetch (a 3 s stall otherwise).
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  // The banner asks the registry for a newer wrangler at every start and advertises
  // one this project cannot take (wrangler 4.86 is the last for Node 20).
  WRANGLER_HIDE_BANNER: "true",
};

// ---- child process groups ----

/** Leaders of the process groups started here whose members may still run. */
const groups = new Set();

function spawnGroup(name, args, cwd, onLine) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  if (child.pid) groups.add(child.pid);
  for (const [stream, out] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
      if (onLine?.(line, stream === child.stderr) === false || !line.trim()) return;
      out.write(`[${name}] ${line}\n`);
    });
  }
  // Whatever the leader left behind (an MCP server orphaned by a killed bridge, a
  // workerd outliving wrangler) goes with it.
  child.once("exit", () => killGroup(child.pid, "SIGKILL"));
  child.once("error", (error) => say(`${name} could not be started: ${error.message}`));
  return child;
}

function killGroup(pgid, signal) {
  if (!pgid) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is empty
  }
  if (signal === "SIGKILL") groups.delete(pgid);
}

const running = (child) => child && child.exitCode === null && child.signalCode === null;
const exited = (child) => new Promise((done) => (running(child) ? child.once("exit", () => done()) : done()));
const describeExit = (code, signal) => (signal ? signal : `exit code ${code}`);

// ---- the bridge, restarted when it dies ----

let bridge;
let restartTimer;
let restarts = 0;

/** Starts the bridge; resolves once it listens, rejects with its own reason if it exits first. */
function launchBridge() {
  const args = [bridgeBin, "--config", mcpConfig, "--port", bridgePort, "--dev-vars", devVars];
  return new Promise((listening, failed) => {
    let verdict = "";
    const plain = [];
    let upAt = 0;
    const child = spawnGroup("bridge", args, root, (line, isStderr) => {
      const bound = /listening on http:\/\/[^\s]+:(\d+)/.exec(line);
      if (bound?.[1]) {
        // Later restarts keep this port: the Worker has it in BRIDGE_URL.
        bridgePort = bound[1];
        upAt = Date.now();
        listening();
      }
      if (!isStderr || line.startsWith("{")) return true;
      const why = /^mcp-local-bridge could not start: (.*)$/.exec(line);
      // Reported once, by this script, as the reason the bridge did not start.
      if (why?.[1]) verdict = why[1];
      else plain.push(line);
      return !why;
    });
    bridge = child;
    // "close", not "exit": the reason is the bridge's last stderr line, read only by then.
    child.once("close", (code, signal) => {
      if (!upAt) return failed(new Error(verdict || plain.join(" | ") || `it exited (${describeExit(code, signal)})`));
      if (stopping) return;
      // A bridge that ran a while and then died starts over at the shortest delay.
      if (Date.now() - upAt > 30_000) restarts = 0;
      restartBridge(`the bridge exited (${describeExit(code, signal)})`);
    });
  });
}

function restartBridge(what) {
  const delay = Math.min(30_000, 1_000 * 2 ** restarts++);
  say(`${what}; restarting it in ${delay / 1000} s on port ${bridgePort}, the Worker keeps running`);
  restartTimer = setTimeout(() => {
    launchBridge().then(
      () => say(`bridge restarted on port ${bridgePort}`),
      (error) => stopping || restartBridge(`the bridge could not restart: ${error.message}`),
    );
  }, delay);
}

// ---- wrangler dev ----

let worker;
let announced = false;
const startedAt = Date.now();
/** mtime of each watched file when wrangler last said it changed. */
const changeSeen = new Map();
let hideNextBuild = false;

// wrangler 4.86 re-runs the [build] command as soon as its watcher is ready and says
// "The file mcp.json changed" although nothing did (BundlerController#startCustomBuild).
// That line, and the build line after it, are dropped unless the file really changed.
function wranglerLine(line) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal colour codes
  const plain = line.replace(/\x1b\[[0-9;]*m/g, "");
  const change = /^The file (.+) changed, restarting build\.\.\.$/.exec(plain);
  if (change?.[1]) {
    // The false one names the whole watch_dir list, comma-joined.
    const files = change[1].split(",").map((file) => resolve(workerDir, file));
    const mtimes = files.map(mtimeOf);
    if (mtimes.every((mtime, i) => mtime !== undefined && mtime <= (changeSeen.get(files[i]) ?? startedAt))) {
      hideNextBuild = true;
      return false;
    }
    files.forEach((file, i) => {
      if (mtimes[i] !== undefined) changeSeen.set(file, mtimes[i]);
    });
    return true;
  }
  if (hideNextBuild && plain.startsWith("[custom build] Running:")) {
    hideNextBuild = false;
    return false;
  }
  if (!announced && /Ready on http/.test(plain)) {
    announced = true;
    setImmediate(() => say(`page and API at http://127.0.0.1:${port}, bridge at http://127.0.0.1:${bridgePort} (Ctrl+C stops both)`));
    void quietNetworkEvents().then((quiet) => quiet && say(`wrangler's network tracing is off until DevTools attaches to 127.0.0.1:${inspectorPort}`));
  } else if (/Local server updated and ready/.test(plain)) {
    // The inspector proxy turns tracing on again once it has reconnected to the reloaded
    // runtime, which may be just after wrangler prints this line: asked again a little later.
    void quietNetworkEvents();
    setTimeout(() => void quietNetworkEvents(), 2_000).unref();
  }
  return showWorkerLine(line);
}

/** True once tracing is off; a failure is said once and changes nothing else. */
let tracingWarned = false;
async function quietNetworkEvents() {
  if (stopping) return false;
  try {
    return await setNetworkEvents(Number(inspectorPort), false);
  } catch (error) {
    if (!tracingWarned && !stopping) say(`could not turn off wrangler's network tracing (${error.message}); the Worker runs as usual`);
    tracingWarned = true;
    return false;
  }
}

function readText(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function mtimeOf(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function startWorker() {
  const args = [
    wranglerBin,
    "dev",
    "--config",
    wranglerConfig,
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--inspector-port",
    inspectorPort,
    "--show-interactive-dev-session=false",
  ];
  // wrangler reads .dev.vars next to its config; another file must be named.
  if (devVars !== join(workerDir, ".dev.vars")) args.push("--env-file", devVars);
  // Another mcp.json than the embedded one: the Worker must see the same servers.
  if (mcpConfig !== join(root, "mcp.json")) args.push("--var", `MCP_CONFIG:${readFileSync(mcpConfig, "utf8")}`);
  // Dev-only defaults (a developer's fast messages), unless .dev.vars sets them: --var would override it.
  const own = devVarNames(readText(devVars));
  for (const [name, value] of Object.entries(DEV_DEFAULTS)) if (!own.has(name)) args.push("--var", `${name}:${value}`);
  worker = spawnGroup("worker", args, workerDir, wranglerLine);
  worker.once("exit", (code, signal) => {
    if (!stopping) void stop(`the Worker (wrangler dev) exited (${describeExit(code, signal)})`, code || 1);
  });
}

// ---- stopping ----

let stopping = false;
let stoppingSince = 0;
async function stop(why, code) {
  if (stopping) {
    // One Ctrl+C can arrive twice (from the terminal, and forwarded by npm): only a
    // later one means "now".
    if (Date.now() - stoppingSince < 1_000) return;
    say(`${why} again: killing everything now`);
    for (const pgid of [...groups]) killGroup(pgid, "SIGKILL");
    process.exit(code || 1);
  }
  stopping = true;
  stoppingSince = Date.now();
  clearTimeout(restartTimer);
  clearInterval(parentWatch);
  const alive = [worker, bridge].filter(running);
  say(`${why}: stopping ${alive.length ? alive.map((c) => (c === worker ? "the Worker" : "the bridge")).join(" and ") : "nothing left"}`);
  // The leaders stop their own children (MCP servers, workerd) gracefully first.
  for (const child of alive) child.kill("SIGTERM");
  let forced = false;
  const force = setTimeout(() => {
    forced = true;
    for (const pgid of [...groups]) killGroup(pgid, "SIGKILL");
  }, 15_000);
  await Promise.all(alive.map(exited));
  clearTimeout(force);
  for (const pgid of [...groups]) killGroup(pgid, "SIGKILL");
  say(forced ? "stopped (some processes had to be killed after 15 s)" : "stopped; nothing left running");
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => void stop(signal, 0));
// Last resort for any other way out: no group outlives this script.
process.on("exit", () => {
  for (const pgid of groups) killGroup(pgid, "SIGKILL");
});
process.on("uncaughtException", (error) => void stop(`internal error (${error.stack ?? error})`, 1));

// Under `npm run`, a shell sits between npm and this script. npm forwards SIGTERM
// to that shell only, and dies of SIGHUP or SIGKILL without telling anyone, so the
// parent (and npm above a shell) are watched: when one goes, so does this script.
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}
function isScriptShell(pid) {
  try {
    const [argv0 = "", flag] = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return ["sh", "bash", "dash", "zsh"].includes(basename(argv0)) && flag === "-c";
  } catch {
    return false;
  }
}
const parent = process.ppid;
const npm = process.env.npm_lifecycle_event && isScriptShell(parent) ? parentOf(parent) : undefined;
const parentWatch = setInterval(() => {
  if (process.ppid !== parent) void stop(`the parent process (pid ${parent}) is gone`, 1);
  else if (npm !== undefined && parentOf(parent) !== npm) void stop(`npm (pid ${npm}) is gone`, 1);
}, 500);
parentWatch.unref();

// ---- start: the bridge first (wrangler reads BRIDGE_URL / BRIDGE_TOKEN when it starts) ----

// Checked first: wrangler would find out only after the bridge and its servers started,
// and say it in a workerd stack trace.
const portFree = (candidate) =>
  new Promise((done) => {
    const probe = createServer();
    probe.once("error", () => done(false));
    probe.listen(Number(candidate), "127.0.0.1", () => probe.close(() => done(true)));
  });
if (!(await portFree(port))) {
  say(`port ${port} is in use; stop what holds it or set PORT`);
  process.exit(1);
}
// The inspector port is named to wrangler (not left for it to pick) so tracing can be
// turned off through it; 9229 is where DevTools looks first, and taken by another
// wrangler dev, any free port does.
if (!(await portFree(inspectorPort))) {
  if (inspectorPortSet) {
    say(`port ${inspectorPort} is in use; stop what holds it or set INSPECTOR_PORT`);
    process.exit(1);
  }
  inspectorPort = await new Promise((done) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address();
      probe.close(() => done(String(free)));
    });
  });
}
try {
  await launchBridge();
} catch (error) {
  if (!stopping) {
    say(`the bridge could not start: ${error.message}`);
    process.exit(1);
  }
}
if (!stopping) startWorker();
