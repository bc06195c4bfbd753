// Where a streamed answer's frames go in the browser's own rendering (issue 37: the long
// tasks left at 4x CPU are the frames' style, layout, pre-paint and paint, not our script).
// One checkout, one paced long answer at N x CPU throttling, in Chromium against the real
// Worker, with a CDP trace that includes Blink's invalidation tracking. Prints:
//   - the main thread's CPU per rendering step (UpdateLayoutTree, Layout, PrePaint, Paint,
//     Layerize, ...) and how many frames ran it;
//   - how much each Layout had to lay out (dirty / total layout objects);
//   - what each Paint recorded (its clip, in pixels) and how many Paints a frame has;
//   - why paint and layout were invalidated (Blink's reasons, by element);
//   - the composited layers at the end (is the message list scrolled on its own layer?).
// --css "RULES" adds a style sheet to the page before it loads: an experiment without a
// rebuild (measure the same run with and without it).
// --bar MS: the CPU bar tasks are counted over (default 50 ms / throttle): at --throttle 1, --bar 12.5
// counts the tasks 4x would make long, without the 4x throttle's own noise on a loaded machine.
// Run: npx tsx bench/page-paint.ts [--dir DIR] [--kb 60] [--throttle 4] [--css RULES] [--width 1280 --height 800] [--frames N] [--tasks N] [--bar MS]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { reply, script } from "../tests/fixtures/fake-llm-script";
import { longAnswer, pieces } from "./lib/long-answer";
import { startPageStack } from "./lib/page-stack";
import { repoRoot } from "./lib/procs";

const cli = parseArgs({
  options: {
    dir: { type: "string" },
    kb: { type: "string" },
    throttle: { type: "string" },
    css: { type: "string", multiple: true },
    width: { type: "string" },
    height: { type: "string" },
    frames: { type: "string" },
    probe: { type: "string", multiple: true },
    tasks: { type: "string" },
    bar: { type: "string" },
  },
}).values;
const KB = Number(cli.kb ?? 60);
const THROTTLE = Number(cli.throttle ?? 4);
const VIEWPORT = { width: Number(cli.width ?? 1280), height: Number(cli.height ?? 800) };
const PIECE = 50;
const PIECE_MS = 10;
/** --frames N: no paced turn; the answer streams at once, then N frames each append a piece to its end (the same work every frame). */
const FRAMES = Number(cli.frames ?? 0);
/** --tasks N: the N costliest tasks (CPU), each event by event (over 1 ms, nesting by indent): what a long task ran. */
const TASKS = Number(cli.tasks ?? 0);

type Cdp = Awaited<ReturnType<ReturnType<Page["context"]>["newCDPSession"]>>;
interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: Record<string, unknown> & { name?: string; data?: Record<string, unknown>; beginData?: Record<string, unknown> };
}

async function trace(cdp: Cdp, run: () => Promise<void>): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (e) => {
    for (const event of e.value) events.push(event as unknown as TraceEvent);
  });
  await cdp.send("Tracing.start", {
    transferMode: "ReportEvents",
    traceConfig: {
      recordMode: "recordAsMuchAsPossible",
      includedCategories: [
        "toplevel",
        "devtools.timeline",
        "disabled-by-default-devtools.timeline",
        "disabled-by-default-devtools.timeline.frame",
        "disabled-by-default-devtools.timeline.invalidationTracking",
      ],
    },
  });
  await run();
  const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
  await cdp.send("Tracing.end");
  await complete;
  return events;
}

const count = <K>(map: Map<K, number>, key: K, by = 1) => map.set(key, (map.get(key) ?? 0) + by);
const top = <K>(map: Map<K, number>, n: number) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);

function summarise(events: TraceEvent[], fromHalf: boolean): number[] {
  const mains = new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
  const byThread = new Map<string, number>();
  for (const e of events) if (e.name === "RunTask" && mains.has(`${e.pid}:${e.tid}`)) count(byThread, `${e.pid}:${e.tid}`, e.tdur ?? 0);
  const main = top(byThread, 1)[0]?.[0];
  const onMain = events.filter((e) => `${e.pid}:${e.tid}` === main);

  // CPU per rendering step.
  const steps = [
    "UpdateLayoutTree",
    "Layout",
    "PrePaint",
    "Paint",
    "Layerize",
    "Commit",
    "UpdateLayer",
    "HitTest",
    "ScrollLayer",
    "FunctionCall",
    "ParseHTML",
    "MajorGC",
    "MinorGC",
  ];
  const cpu = new Map<string, number>();
  const n = new Map<string, number>();
  for (const e of onMain) if (e.ph === "X" && steps.includes(e.name)) count(cpu, e.name, (e.tdur ?? 0) / 1000) && count(n, e.name);
  console.log("main thread CPU by step (ms, count, mean):");
  for (const [name, ms] of top(cpu, steps.length))
    console.log(`  ${name.padEnd(18)} ${ms.toFixed(0).padStart(7)} ${String(n.get(name)).padStart(6)} ${(ms / (n.get(name) ?? 1)).toFixed(2).padStart(8)}`);

  // Layout: how much of the tree each one did.
  const layouts = onMain.filter((e) => e.name === "Layout" && e.ph === "X");
  const dirty = layouts.map((e) => Number(e.args?.beginData?.dirtyObjects ?? 0));
  const total = layouts.map((e) => Number(e.args?.beginData?.totalObjects ?? 0));
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  console.log(
    `layouts: ${layouts.length}, dirty objects mean ${mean(dirty).toFixed(0)} max ${Math.max(0, ...dirty)}, total objects mean ${mean(total).toFixed(0)}`,
  );

  // Style: how many elements each recalc did.
  const recalcs = onMain.filter((e) => e.name === "UpdateLayoutTree" && e.ph === "X").map((e) => Number(e.args?.elementCount ?? 0));
  console.log(
    `style recalcs: ${recalcs.length}, elements mean ${mean(recalcs).toFixed(0)} max ${Math.max(0, ...recalcs)}; over 500 elements: ${recalcs.filter((c) => c > 500).length}`,
  );

  // Paint: its clip's area and layer.
  const paints = onMain.filter((e) => e.name === "Paint" && e.ph === "X");
  const byLayer = new Map<string, number>();
  const areaByLayer = new Map<string, number>();
  for (const p of paints) {
    const data = p.args?.data ?? {};
    const clip = (data.clip as number[] | undefined) ?? [];
    const xs = clip.filter((_, i) => i % 2 === 0);
    const ys = clip.filter((_, i) => i % 2 === 1);
    const area = xs.length ? (Math.max(...xs) - Math.min(...xs)) * (Math.max(...ys) - Math.min(...ys)) : 0;
    const key = `layer ${String(data.layerId ?? "?")} node ${String(data.nodeId ?? "?")}`;
    count(byLayer, key, (p.tdur ?? 0) / 1000);
    count(areaByLayer, key, area);
  }
  const nested = paints.filter((p) => paints.some((q) => q !== p && q.ts <= p.ts && p.ts < q.ts + (q.dur ?? 0))).length;
  console.log(`paints: ${paints.length} (${nested} inside another Paint); CPU and summed clip area by layer:`);
  for (const [key, ms] of top(byLayer, 6)) console.log(`  ${key}: ${ms.toFixed(0)} ms, ${((areaByLayer.get(key) ?? 0) / 1e6) | 0} Mpx`);

  // The tasks over 50 ms of CPU: what their time went to (top-level steps only, nested ones not counted twice).
  const tasks = onMain.filter((e) => e.name === "RunTask" && e.ph === "X");
  const longTasks = tasks.filter((t) => (t.tdur ?? 0) > 50_000);
  const within = new Map<string, number>();
  for (const t of longTasks) {
    const end = t.ts + (t.dur ?? 0);
    let covered = 0;
    for (const e of onMain) {
      if (e.ph !== "X" || e === t || e.ts < t.ts || e.ts >= end || !steps.includes(e.name) || e.ts < covered) continue;
      count(within, e.name, (e.tdur ?? 0) / 1000);
      covered = e.ts + (e.dur ?? 0);
    }
  }
  const cpuOf = (t: TraceEvent) => (t.tdur ?? 0) / 1000;
  console.log(
    `tasks: ${tasks.length}; over 50 ms CPU: ${longTasks.length} (worst ${Math.max(0, ...tasks.map(cpuOf)).toFixed(0)}); over 30: ${tasks.filter((t) => cpuOf(t) > 30).length}; their CPU by step: ${top(
      within,
      8,
    )
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(", ")}`,
  );

  // The same bar scaled to the throttle (a task over 50 / N ms at N x): comparable across throttles, and at 1x free of the
  // throttle's own noise under load. With the main thread's CPU in tasks, all told.
  const bar = Number(cli.bar ?? 50 / THROTTLE);
  console.log(
    `tasks over ${bar.toFixed(1)} ms CPU (--bar, else 50 ms / throttle): ${tasks.filter((t) => cpuOf(t) > bar).length}, their CPU over the bar ${tasks
      .reduce((a, t) => a + Math.max(0, cpuOf(t) - bar), 0)
      .toFixed(0)} ms; main thread CPU in tasks ${tasks.reduce((a, t) => a + cpuOf(t), 0).toFixed(0)} ms`,
  );

  const paintNodes = top(byLayer, 4).map(([key]) => Number(key.split(" node ")[1]));

  // The frames (tasks that painted) of the turn's second half, where the answer is long: their CPU and its steps.
  const outerPaints = paints.filter((p) => !paints.some((q) => q !== p && q.ts <= p.ts && p.ts < q.ts + (q.dur ?? 0)));
  const half = tasks.length && fromHalf ? (tasks[0] as TraceEvent).ts + ((tasks.at(-1) as TraceEvent).ts - (tasks[0] as TraceEvent).ts) / 2 : 0;
  const frames = tasks.filter((t) => t.ts >= half && outerPaints.some((p) => p.ts >= t.ts && p.ts < t.ts + (t.dur ?? 0)));
  const pct = (xs: number[], q: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) : Number.NaN;
  };
  const stepOf = (frame: TraceEvent, name: string) =>
    (name === "Paint" ? outerPaints : onMain)
      .filter((e) => e.name === name && e.ph === "X" && e.ts >= frame.ts && e.ts < frame.ts + (frame.dur ?? 0))
      .reduce((a, e) => a + (e.tdur ?? 0) / 1000, 0);
  const line = (name: string, xs: number[]) =>
    `  ${name.padEnd(18)} p50 ${pct(xs, 0.5).toFixed(1).padStart(6)}  p90 ${pct(xs, 0.9).toFixed(1).padStart(6)}  max ${Math.max(0, ...xs)
      .toFixed(1)
      .padStart(6)}`;
  console.log(`frames${fromHalf ? " in the second half" : ""}: ${frames.length}; CPU ms per frame:`);
  console.log(line("frame task", frames.map(cpuOf)));
  for (const name of ["UpdateLayoutTree", "Layout", "PrePaint", "Paint", "Layerize", "Commit", "FunctionCall"])
    console.log(
      line(
        name,
        frames.map((f) => stepOf(f, name)),
      ),
    );

  // One median frame, event by event (nesting by indent): where its CPU went.
  const sortedFrames = [...frames].sort((a, b) => cpuOf(a) - cpuOf(b));
  const median = sortedFrames[Math.floor(sortedFrames.length / 2)];
  if (median) {
    console.log(`a median frame (${cpuOf(median).toFixed(1)} ms CPU), its events over 0.5 ms:`);
    printTree(onMain, median, 500);
  }

  // --tasks N: the costliest tasks, event by event.
  for (const task of [...tasks].sort((a, b) => cpuOf(b) - cpuOf(a)).slice(0, TASKS)) {
    console.log(
      `task ${cpuOf(task).toFixed(1)} ms CPU (${((task.dur ?? 0) / 1000).toFixed(1)} wall) at ${((task.ts - (tasks[0]?.ts ?? 0)) / 1000).toFixed(0)} ms:`,
    );
    printTree(onMain, task, 1000);
  }

  // Invalidation: why.
  for (const kind of [
    "PaintInvalidationTracking",
    "LayoutInvalidationTracking",
    "StyleRecalcInvalidationTracking",
    "StyleInvalidatorInvalidationTracking",
    "ScheduleStyleInvalidationTracking",
  ]) {
    const reasons = new Map<string, number>();
    for (const e of onMain.filter((x) => x.name === kind)) {
      const d = e.args?.data ?? {};
      count(reasons, `${String(d.nodeName ?? "?")} ${String(d.reason ?? d.invalidationSet ?? d.changedAttribute ?? d.changedPseudo ?? "")}`.slice(0, 110));
    }
    if (reasons.size) {
      console.log(`${kind}: ${[...reasons.values()].reduce((a, b) => a + b, 0)}`);
      for (const [key, c] of top(reasons, 12)) console.log(`  ${String(c).padStart(6)} ${key}`);
    }
  }
  return paintNodes.filter((id) => Number.isFinite(id));
}

/** The events inside `task` whose CPU is over `minUs`, in order, nested by indent (a function call names its function). */
function printTree(onMain: TraceEvent[], task: TraceEvent, minUs: number): void {
  const inside = onMain.filter((e) => e.ph === "X" && e !== task && e.ts >= task.ts && e.ts < task.ts + (task.dur ?? 0) && (e.tdur ?? 0) > minUs);
  const open: TraceEvent[] = [];
  for (const e of inside.sort((a, b) => a.ts - b.ts)) {
    while (open.length && (open.at(-1) as TraceEvent).ts + ((open.at(-1) as TraceEvent).dur ?? 0) <= e.ts) open.pop();
    const data = e.args?.data ?? e.args?.beginData ?? {};
    const what = [
      data.functionName,
      data.type,
      data.dirtyObjects !== undefined ? `dirty ${String(data.dirtyObjects)}/${String(data.totalObjects)}` : "",
      e.args?.elementCount !== undefined ? `${String(e.args.elementCount)} elements` : "",
    ]
      .filter(Boolean)
      .join(" ");
    console.log(
      `  ${"  ".repeat(open.length)}${e.name}${what ? ` (${what})` : ""} ${((e.tdur ?? 0) / 1000).toFixed(1)}${e.name === "Layout" ? dirtiedBy(onMain, e) : ""}`,
    );
    open.push(e);
  }
}

/** What dirtied a Layout: the nodes Blink's layout invalidation tracking names since the Layout before it, most frequent first. */
function dirtiedBy(onMain: TraceEvent[], layout: TraceEvent): string {
  const before = onMain.filter((e) => e.name === "Layout" && e.ph === "X" && e.ts < layout.ts).at(-1);
  const since = before ? before.ts + (before.dur ?? 0) : 0;
  const nodes = new Map<string, number>();
  for (const e of onMain)
    if (e.name === "LayoutInvalidationTracking" && e.ts >= since && e.ts < layout.ts) {
      const d = e.args?.data ?? {};
      count(nodes, `${String(d.nodeName ?? "?")} ${String(d.reason ?? "")}`.slice(0, 60));
    }
  return nodes.size
    ? `  <- ${top(nodes, 3)
        .map(([k, c]) => `${c}x ${k}`)
        .join("; ")}`
    : "";
}

async function describe(cdp: Cdp, backendNodeId: number): Promise<string> {
  const d = (await cdp.send("DOM.describeNode", { backendNodeId }).catch(() => null)) as { node: { nodeName: string; attributes?: string[] } } | null;
  return d ? `${d.node.nodeName} ${(d.node.attributes ?? []).join(" ").slice(0, 60)}` : "?";
}

async function main(): Promise<void> {
  const dir = cli.dir ?? repoRoot;
  console.log(
    `bench:page-paint ${dir} ${KB} KB at ${THROTTLE}x, ${VIEWPORT.width}x${VIEWPORT.height}; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  if (cli.css) console.log(`extra css: ${cli.css.join(" ")}`);
  const stack = await startPageStack({ dirs: [dir] });
  try {
    const worker = stack.workers[0]?.worker;
    if (!worker) throw new Error("no worker");
    const context = await stack.browser.newContext({ viewport: VIEWPORT });
    context.setDefaultTimeout(60_000);
    const page = await context.newPage();
    if (cli.css) {
      const css = JSON.stringify(cli.css.join("\n"));
      await page.addInitScript(
        `document.addEventListener("DOMContentLoaded", () => { const s = document.createElement("style"); s.textContent = ${css}; document.head.append(s); });`,
      );
    }
    await page.goto(`${worker.url}/`);
    await page.locator('#conn[data-state="open"]').waitFor({ state: "attached" });
    const done = () =>
      page.waitForFunction("!document.getElementById('send').hidden && document.querySelector('.msg.assistant.streaming') === null", undefined, {
        polling: 250,
        timeout: 300_000,
      });
    await script(stack.fake.url, stack.apiKey, [reply.text("Hello.")]);
    await page.locator("#composer-input").fill("hello");
    await page.locator("#composer-input").press("Enter");
    await page.locator(".msg.assistant").first().waitFor();
    await done();

    const cdp = await context.newCDPSession(page);
    if (FRAMES) {
      await script(stack.fake.url, stack.apiKey, [reply.stream(pieces(longAnswer(KB), 2000))]);
      await page.locator("#composer-input").fill("a long answer please");
      await page.locator("#composer-input").press("Enter");
      await page.waitForFunction("document.querySelectorAll('.msg.assistant').length >= 2");
      await done();
      // The answer as it streams: its caret, and plain text growing at the end of its last code block (stream-plain.js).
      await page.evaluate(`(() => {
        const answer = [...document.querySelectorAll(".msg.assistant")].at(-1);
        answer.classList.add("streaming");
        const code = [...answer.querySelectorAll("pre code")].at(-1);
        const box = document.createElement("span");
        box.className = "md-open";
        window.__paintText = document.createTextNode("");
        box.append(window.__paintText);
        code.append(box);
        document.getElementById("messages").scrollTop = 1e9;
      })()`);
      await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
    }
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
    const started = Date.now();
    let events: TraceEvent[];
    if (FRAMES) {
      events = await trace(cdp, async () => {
        await page.evaluate(`new Promise((resolve) => {
          let n = 0;
          const step = () => {
            if (n++ >= ${FRAMES}) return resolve();
            window.__paintText.appendData("x = compute(1, 2) * 2  # a line of code, fifty ch\\n".slice(0, ${PIECE}));
            requestAnimationFrame(() => setTimeout(step, 0));
          };
          step();
        })`);
      });
    } else {
      await script(stack.fake.url, stack.apiKey, [reply.stream(pieces(longAnswer(KB), PIECE), { chunkMs: PIECE_MS })]);
      events = await trace(cdp, async () => {
        await page.locator("#composer-input").fill("a long answer please");
        await page.locator("#composer-input").press("Enter");
        await page.waitForFunction("document.querySelectorAll('.msg.assistant').length >= 2");
        await done();
      });
    }
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    console.log(
      `turn ${Date.now() - started} ms, ${events.length} trace events; load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    console.log(
      `geometry: ${await page.evaluate("JSON.stringify({ page: document.scrollingElement.scrollHeight, view: innerHeight, list: document.getElementById('messages').scrollHeight, listView: document.getElementById('messages').clientHeight, listTop: document.getElementById('messages').scrollTop })")}`,
    );
    // --probe JS: an expression evaluated in the page now, printed (a look at the DOM after the turn).
    for (const probe of cli.probe ?? []) console.log(`probe ${probe}: ${JSON.stringify(await page.evaluate(probe))}`);
    const paintNodes = summarise(events, !FRAMES);

    // The composited layers now (the message list scrolled at its end).
    await cdp.send("DOM.getDocument", { depth: -1 });
    for (const id of paintNodes) console.log(`paint node ${id}: ${await describe(cdp, id)}`);
    const layers = new Promise<{
      layers: { layerId: string; backendNodeId?: number; width: number; height: number; drawsContent: boolean; paintCount: number }[];
    }>((resolve) => cdp.once("LayerTree.layerTreeDidChange", (e) => resolve(e as never)));
    await cdp.send("LayerTree.enable");
    await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
    const tree = await Promise.race([layers, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
    console.log("layers (id, size, draws, paint count, node):");
    for (const layer of tree?.layers ?? []) {
      const node = layer.backendNodeId ? await describe(cdp, layer.backendNodeId) : "";
      console.log(`  ${layer.layerId} ${layer.width}x${layer.height} ${layer.drawsContent ? "draws" : "-"} ${layer.paintCount} ${node}`);
    }
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
