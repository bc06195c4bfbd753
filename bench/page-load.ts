// How the page loads (issue 37, "the page is built"), in Chromium against the real Worker
// under wrangler dev on loopback, for this tree and another checkout (default: the issue's
// starting commit 2f66051 at /work/base-2f66) in the same run, alternating, with ratios:
//   cold load    a fresh browser context (empty cache): requests the page makes (the
//                session's WebSocket not counted), bytes over the wire (CDP encodedDataLength:
//                bodies and headers), API calls made more than once, and time to interactive;
//   warm reload  the same tab reloaded: requests that reached the server (not answered by
//                the browser's cache), requests in all, and time to interactive.
// "Interactive": from the navigation's start until the message box takes input and the
// session's socket is open (Send would go); "tools ready": until the filesystem server
// shows ready as well (a message could use a tool). Checked at every frame.
// A load is over when no request has been in flight for 500 ms. One warm-up round per
// checkout first (wrangler's first requests, the user's first session), not counted; then
// the median of N rounds.
// Goals (issue 37): cold load <= 8 requests and interactive <= 1 s; warm reload <= 3 requests
// to the server, the session's socket counted (index.html, GET /api/bootstrap, the socket).
// "Main thread busy": the page's tasks until tools are ready (CDP Performance TaskDuration), and
// of them script (ScriptDuration): what the page's own work costs, which a loaded machine
// stretches much less than the wall-clock times above.
// `--cpu`: the cold load's main-thread CPU (thread time from a Chromium trace, bench/lib/page-cpu.ts)
// until interactive: tasks, HTML parse, module evaluation, style and layout; steady on a busy machine.
// `--first-visit`: every cold load is a person's first (their chats deleted before it), so the
// page starts their first chat as well (one at the same time as the socket since issue 37).
// `--timeline`: where the last cold load's time went, per checkout (the page's own clock, ms from
// the navigation's start): each request's start and end, the document's parse, when the
// session's socket was asked for and opened, and interactive.
// Run: npm run bench:page [-- --base DIR] [--dir DIR (instead of this tree)] [--rounds N] [--first-visit] [--timeline] [--cpu]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { repoRoot } from "./lib/procs";
import { type PageCpu, traceCpu } from "./lib/page-cpu";
import { startPageStack, type PageStack } from "./lib/page-stack";
import { isApi, repeatedCalls, watchRequests } from "../tests/e2e/request-log";

const cli = parseArgs({
  options: {
    dir: { type: "string" },
    base: { type: "string" },
    rounds: { type: "string" },
    "first-visit": { type: "boolean" },
    timeline: { type: "boolean" },
    cpu: { type: "boolean" },
  },
}).values;
const BASE = cli.base ?? "/work/base-2f66";
const ROUNDS = Number(cli.rounds ?? 5);
const QUIET_MS = 500;

interface Load {
  requests: number;
  /** Of `requests`: the page's files (HTML, scripts, styles), the rest being API calls. */
  files: number;
  /** Files the server answered (not the cache). */
  filesFromServer: number;
  /** What was asked for, in order ("GET /api/me", "GET /assets/page-x.js (cache)"). */
  list: string[];
  /** Requests the server answered (not the memory or disk cache). */
  fromServer: number;
  /** WebSockets opened (the session's): one request each, not in `requests`. */
  sockets: number;
  bytes: number;
  /** API calls (method and path) made more than once. */
  repeated: string[];
  interactiveMs: number;
  toolsMs: number;
  /** The page's main thread until interactive (CDP Performance metrics, ms): all tasks, and script of them. */
  busyMs: number;
  scriptMs: number;
  styleLayoutMs: number;
  /** --cpu: the renderer main thread's thread time until interactive (cold load only). */
  cpu?: PageCpu;
  /** --timeline: what happened when in this load (page clock). */
  timeline?: string[];
}

/** Every request of one load as CDP sees it (tests/e2e/request-log.ts); resolves once the network has been quiet for QUIET_MS. */
async function watch(
  page: Page,
  origin: string,
): Promise<{ done: () => Promise<Omit<Load, "interactiveMs" | "toolsMs" | "busyMs" | "scriptMs" | "styleLayoutMs" | "cpu">> }> {
  const log = await watchRequests(page, origin);
  return {
    done: async () => {
      await log.quiet({ quietMs: QUIET_MS, timeoutMs: 60_000 });
      await log.stop();
      const all = log.seen();
      const files = all.filter((r) => !isApi(r.url));
      return {
        requests: all.length,
        files: files.length,
        filesFromServer: files.filter((r) => !r.cached).length,
        list: all.map((r) => `${r.method} ${r.url}${r.cached ? " (cache)" : ""}`),
        fromServer: all.filter((r) => !r.cached).length,
        sockets: log.sockets().length,
        bytes: all.reduce((sum, r) => sum + r.bytes, 0),
        repeated: repeatedCalls(all),
      };
    },
  };
}

/**
 * Ms from the navigation's start until the page is interactive (the message box takes input
 * and the session's socket is open: Send would go), and until the filesystem server shows
 * ready as well (a message could use a tool). Checked at every frame.
 */
async function interactive(page: Page): Promise<{ interactiveMs: number; toolsMs: number }> {
  const at = await page.waitForFunction(
    `(() => {
      const input = document.getElementById("composer-input");
      const w = window;
      if (!w.__interactive && input && !input.disabled && input.offsetParent !== null && document.getElementById("conn")?.dataset.state === "open") w.__interactive = performance.now();
      if (w.__interactive && document.querySelector('#servers li[data-server="filesystem"][data-state="ready"]')) return { interactiveMs: w.__interactive, toolsMs: performance.now() };
      return null;
    })()`,
    undefined,
    { polling: "raf", timeout: 60_000 },
  );
  return (await at.jsonValue()) as { interactiveMs: number; toolsMs: number };
}

/** Ms marks of this load as the page saw them (resource and navigation timing, the socket's open). */
async function timeline(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const nav = performance.getEntriesByType("navigation")[0];
    const at = (ms) => ms.toFixed(0).padStart(5);
    const rows = [];
    if (nav) {
      rows.push(at(nav.responseStart) + "        document: first byte");
      rows.push(at(nav.responseEnd) + "        document: last byte");
      rows.push(at(nav.domInteractive) + "        document: parsed (DOM interactive)");
      rows.push(at(nav.domContentLoadedEventStart) + "        DOMContentLoaded (module scripts ran)");
    }
    for (const r of performance.getEntriesByType("resource"))
      rows.push(at(r.startTime) + " " + at(r.responseEnd) + "  " + r.initiatorType + " " + new URL(r.name).pathname);
    for (const m of window.__socketMarks ?? []) rows.push(at(m.at) + "        socket " + m.what);
    // The page's own marks and measures (performance.mark/measure), start and end.
    for (const m of performance.getEntriesByType("mark")) rows.push(at(m.startTime) + "        mark " + m.name);
    for (const m of performance.getEntriesByType("measure")) rows.push(at(m.startTime) + " " + at(m.startTime + m.duration) + "  measure " + m.name);
    rows.push(at(window.__interactive ?? NaN) + "        interactive");
    return rows.sort((a, b) => Number(a.slice(0, 5)) - Number(b.slice(0, 5)));
  })()`)) as string[];
}

/** Before the page's own scripts: notes when a WebSocket is made and when it opens (for --timeline). */
const SOCKET_MARKS = `(() => {
  const marks = (window.__socketMarks = []);
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      marks.push({ at: performance.now(), what: "made" });
      this.addEventListener("open", () => marks.push({ at: performance.now(), what: "open" }));
    }
  };
})()`;

/** Deletes every chat of the bench's user (DELETE /api/sessions, as the page asks it). */
async function deleteChats(url: string): Promise<void> {
  const answer = await fetch(`${url}/api/sessions`, { method: "DELETE", headers: { "content-type": "application/json", origin: url }, body: "{}" });
  if (!answer.ok) throw new Error(`DELETE /api/sessions: ${answer.status} ${await answer.text()}`);
}

/**
 * Main-thread time of the page's document (CDP Performance: TaskDuration, ScriptDuration, style and
 * layout, in ms; counted from the document's start, a reload starts again from 0).
 * A figure that moves less with the machine's load than a wall-clock time does: another
 * process taking the CPU stretches the time to interactive, much less the work the page did.
 */
async function mainThread(page: Page): Promise<() => Promise<{ busyMs: number; scriptMs: number; styleLayoutMs: number }>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  return async () => {
    const { metrics } = await cdp.send("Performance.getMetrics");
    const pick = (name: string) => (metrics.find((m) => m.name === name)?.value ?? Number.NaN) * 1000;
    return { busyMs: pick("TaskDuration"), scriptMs: pick("ScriptDuration"), styleLayoutMs: pick("RecalcStyleDuration") + pick("LayoutDuration") };
  };
}

async function measure(stack: PageStack, url: string): Promise<{ cold: Load; warm: Load }> {
  if (cli["first-visit"]) await deleteChats(url);
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    if (cli.timeline) await page.addInitScript(SOCKET_MARKS);
    const coldWatch = await watch(page, url);
    const busy = await mainThread(page);
    const trace = cli.cpu ? await traceCpu(page) : undefined;
    await page.goto(`${url}/`);
    const coldTti = await interactive(page);
    const cpu = await trace?.stop();
    const coldBusy = await busy();
    const cold = { ...(await coldWatch.done()), ...coldTti, ...coldBusy, cpu, ...(cli.timeline ? { timeline: await timeline(page) } : {}) };
    const warmWatch = await watch(page, url);
    await page.reload();
    const warmTti = await interactive(page);
    const warm = { ...(await warmWatch.done()), ...warmTti, ...(await busy()) };
    return { cold, warm };
  } finally {
    await context.close();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const here = cli.dir ?? repoRoot;
  const dirs = [here, BASE];
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(1))
      .join(" ");
  console.log(`bench:page: ${ROUNDS} rounds (+1 warm-up) per checkout, alternating; load average ${load()}`);
  const stack = await startPageStack({ dirs });
  try {
    const results = dirs.map(() => [] as { cold: Load; warm: Load }[]);
    for (let round = 0; round <= ROUNDS; round++) {
      // Alternating who goes first, so a slow moment of the machine falls on both.
      const order = round % 2 ? [1, 0] : [0, 1];
      for (const i of order) {
        const result = await measure(stack, stack.workers[i]!.worker.url);
        if (round > 0) results[i]!.push(result);
      }
    }
    const rows: [string, (r: { cold: Load; warm: Load }) => number, (n: number) => string][] = [
      ["cold load: requests", (r) => r.cold.requests, String],
      ["cold load: of which files (HTML, JS, CSS)", (r) => r.cold.files, String],
      ["cold load: KB over the wire", (r) => r.cold.bytes / 1000, (n) => n.toFixed(1)],
      ["cold load: API calls repeated", (r) => r.cold.repeated.length, String],
      ["cold load: interactive (ms)", (r) => r.cold.interactiveMs, (n) => n.toFixed(0)],
      ["cold load: tools ready too (ms)", (r) => r.cold.toolsMs, (n) => n.toFixed(0)],
      ["cold load: main thread busy (ms)", (r) => r.cold.busyMs, (n) => n.toFixed(0)],
      ["cold load: of which script (ms)", (r) => r.cold.scriptMs, (n) => n.toFixed(0)],
      ["cold load: of which style and layout (ms)", (r) => r.cold.styleLayoutMs, (n) => n.toFixed(0)],
      ["warm reload: requests to the server", (r) => r.warm.fromServer, String],
      ["warm reload: the same, the socket counted", (r) => r.warm.fromServer + r.warm.sockets, String],
      ["warm reload: files from the server", (r) => r.warm.filesFromServer, String],
      ["warm reload: requests in all", (r) => r.warm.requests, String],
      ["warm reload: KB over the wire", (r) => r.warm.bytes / 1000, (n) => n.toFixed(1)],
      ["warm reload: interactive (ms)", (r) => r.warm.interactiveMs, (n) => n.toFixed(0)],
      ["warm reload: tools ready too (ms)", (r) => r.warm.toolsMs, (n) => n.toFixed(0)],
      ["warm reload: main thread busy (ms)", (r) => r.warm.busyMs, (n) => n.toFixed(0)],
    ];
    if (cli.cpu)
      rows.push(
        ["cold load --cpu: main thread CPU, tasks (ms)", (r) => r.cold.cpu?.tasksMs ?? Number.NaN, (n) => n.toFixed(0)],
        ["cold load --cpu: HTML parse (ms)", (r) => r.cold.cpu?.parseHtmlMs ?? Number.NaN, (n) => n.toFixed(1)],
        ["cold load --cpu: module evaluation (ms)", (r) => r.cold.cpu?.evaluateModuleMs ?? Number.NaN, (n) => n.toFixed(1)],
        ["cold load --cpu: style and layout (ms)", (r) => r.cold.cpu?.styleLayoutMs ?? Number.NaN, (n) => n.toFixed(1)],
      );
    const width = Math.max(...rows.map(([name]) => name.length));
    console.log(`\n${"median of rounds".padEnd(width)}  ${"this tree".padStart(10)}  ${"base".padStart(10)}  base/this`);
    for (const [name, pick, show] of rows) {
      const [mine, base] = results.map((list) => median(list.map(pick)));
      const ratio = mine ? `${(base! / mine!).toFixed(2)}x` : "-";
      console.log(`${name.padEnd(width)}  ${show(mine!).padStart(10)}  ${show(base!).padStart(10)}  ${ratio}`);
    }
    for (const [i, dir] of dirs.entries()) {
      const last = results[i]!.at(-1)!;
      console.log(`\n${i === 0 ? "this tree" : "base"} (${dir}), last round:\n  cold: ${last.cold.list.join(", ")}\n  warm: ${last.warm.list.join(", ")}`);
      const repeated = [...new Set(results[i]!.flatMap((r) => r.cold.repeated))];
      if (last.cold.timeline)
        console.log(`  cold load's timeline (ms from navigation start; start end for a request):\n    ${last.cold.timeline.join("\n    ")}`);
      console.log(`repeated on a cold load (${i === 0 ? "this tree" : "base"}, ${dir}): ${repeated.join(", ") || "none"}`);
    }
    console.log(`goals: cold <= 8 requests, interactive <= 1000 ms; warm reload <= 3 requests (socket counted). Load average now ${load()}`);
    for (const note of stack.observations) console.log(`note: ${note}`);
  } finally {
    await stack.stop();
  }
}

await main();
