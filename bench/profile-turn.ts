import { parseArgs } from "node:util";
import { attachDevTools, type DevTools } from "../tests/fixtures/devtools";
import { errorText, repoRoot } from "./lib/procs";
import { OneToolTurnFixture } from "./lib/one-tool-turn";
import { TimedSession } from "./lib/timed-session";
import { startWorker } from "./lib/turn-worker";
import { p } from "./lib/turn-report";

const KEY = "bench-profile";
const cli = parseArgs({ options: { turns: { type: "string" }, entries: { type: "string" }, "reset-every": { type: "string" } } }).values;
const resetEvery = Number(cli["reset-every"] ?? 0);
const turns = Number(cli.turns ?? 200);
const warmUps = Math.max(20, Math.ceil(Number(cli.entries ?? 0) / 4));
const log = (text: string) => process.stderr.write(`profile: ${text}\n`);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * wrangler bundles the Worker into one index.js; esbuild marks where each input file
 * starts with a `// path` comment line, so a line number maps back to its source file.
 */
async function moduleMap(devtools: DevTools): Promise<(url: string, line: number) => string> {
  const scripts = devtools.events("Debugger.scriptParsed") as { scriptId: string; url: string }[];
  const maps = new Map<string, { line: number; file: string }[]>();
  for (const s of scripts.filter((x) => x.url.endsWith("index.js"))) {
    const { scriptSource } = (await devtools.send("Debugger.getScriptSource", { scriptId: s.scriptId })) as { scriptSource: string };
    const marks: { line: number; file: string }[] = [];
    scriptSource.split("\n").forEach((text, i) => {
      const m = /^\/\/ ((?:node_modules|src|\.\.)\/\S+)$/.exec(text);
      if (m?.[1]) marks.push({ line: i, file: m[1] });
    });
    // The profile names scripts by their base name ("index.js").
    maps.set(s.url.replace(/^.*\//, ""), marks);
  }
  return (url, line) => {
    const marks = maps.get(url.replace(/^.*\//, ""));
    if (!marks) return packageOf(url);
    let lo = 0;
    let hi = marks.length - 1;
    let found = "";
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const mark = marks[mid];
      if (mark && mark.line <= line) {
        found = mark.file;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found || packageOf(url);
  };
}

function packageOf(url: string): string {
  const native = url.includes("(native") ? " (native calls)" : "";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return (m[1] ?? url) + native;
  const src = /(?:^|\/)(src\/[^/\s]+)/.exec(url);
  if (src) return (src[1] ?? url) + native;
  return url ? url.replace(/^.*\//, "") : "(runtime)";
}

function summarize(profile: Profile, wallMs: number, fileOf: (url: string, line: number) => string): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // A runtime (native) function counts toward the file of its nearest JavaScript caller.
  const callerFile = (id: number): string => {
    for (let at = parent.get(id); at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node?.callFrame.url) return `${fileOf(node.callFrame.url, node.callFrame.lineNumber)} (native, via ${node.callFrame.functionName || "anonymous"})`;
    }
    return "(runtime)";
  };
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  let jsUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const name = node.callFrame.functionName || "(anonymous)";
    if (name === "(idle)" || name === "(program)") continue;
    jsUs += us;
    const file = node.callFrame.url ? fileOf(node.callFrame.url, node.callFrame.lineNumber) : callerFile(id);
    const key = `${name} ${file}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const k = name === "(garbage collector)" ? "(garbage collector)" : packageOf(file);
    pkg.set(k, (pkg.get(k) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `    ${(us / 1000 / turns).toFixed(3).padStart(7)} ms/turn  ${((100 * us) / jsUs).toFixed(1).padStart(5)}%  ${k}`);
  return [
    `JavaScript in the Worker isolate: ${(jsUs / 1000 / turns).toFixed(2)} ms per turn (${((100 * jsUs) / 1000 / wallMs).toFixed(0)}% of the wall time)`,
    "  by package / src folder (self time):",
    ...top(pkg, 15),
    "  by function (self time):",
    ...top(fn, 25),
  ];
}

const fixture = new OneToolTurnFixture();

async function main(): Promise<void> {
  const { tmp, rootPath, fake, bridge } = await fixture.start("bench-profile-", KEY);
  const { groups } = fixture;
  const { url, inspector } = await startWorker({
    dir: repoRoot,
    root: rootPath,
    fakeUrl: fake.url,
    apiKey: KEY,
    bridge,
    stateParent: tmp,
    cleanupDirs: [],
    groups,
    observations: [],
  });

  const session = await TimedSession.open(url, `profile-${Date.now()}`, 15_000);
  await session.waitForServers(15_000);
  for (let i = 0; i < warmUps; i++) await session.turn(`warm-up ${i}`, 20_000);

  const devtools = await attachDevTools(inspector);
  await devtools.send("Debugger.enable");
  await devtools.send("Profiler.enable");
  await devtools.send("Profiler.setSamplingInterval", { interval: 50 });
  await devtools.send("Profiler.start");
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < turns; i++) {
    if (resetEvery > 0 && i % resetEvery === 0) {
      const from = session.client.received.length;
      session.client.send({ type: "reset" });
      await session.client.next((m) => m.type === "history" && m.entries.length === 0, from);
    }
    const r = await session.turn(`profiled ${i}`, 20_000);
    if (r.error) throw new Error(`turn ${i}: ${r.error}`);
    ms.push(r.ms);
  }
  const wallMs = performance.now() - t0;
  const { profile } = (await devtools.send("Profiler.stop")) as { profile: Profile };
  const fileOf = await moduleMap(devtools);
  devtools.close();
  session.client.close();
  console.log(
    [
      `${turns} warm turns (profiled; the profiler slows them): p50 ${p(ms, 50).toFixed(1)} ms, wall ${wallMs.toFixed(0)} ms`,
      ...summarize(profile, wallMs, fileOf),
    ].join("\n"),
  );
}

try {
  await main();
} catch (error) {
  console.error(`profile failed: ${errorText(error)}`);
  process.exitCode = 1;
} finally {
  for (const note of await fixture.stop()) log(note);
}
process.exit(process.exitCode ?? 0);
