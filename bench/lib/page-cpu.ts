// The page's main-thread CPU time on one load, from a Chromium trace: the renderer main
// thread's thread time (`tdur`, not wall time) of its tasks, HTML parse, module evaluation and
// style and layout, from the navigation until `stop()`. Thread time is what the page's own work
// costs: a machine busy with other processes stretches wall-clock figures (and CDP's
// TaskDuration) several times over, much less this. Used by bench/page-load.ts --cpu.
import type { Page } from "playwright-core";

/** Trace events as Chromium reports them (only the fields read here). */
interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  tdur?: number;
  args?: { name?: string };
}

export interface PageCpu {
  tasksMs: number;
  parseHtmlMs: number;
  evaluateModuleMs: number;
  styleLayoutMs: number;
}

/** Starts tracing `page` (call before its navigation); `stop()` ends it and sums the main thread's thread time. */
export async function traceCpu(page: Page): Promise<{ stop: () => Promise<PageCpu> }> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (data) => events.push(...(data.value as unknown as TraceEvent[])));
  await cdp.send("Tracing.start", {
    traceConfig: { includedCategories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "toplevel", "__metadata"] },
    transferMode: "ReportEvents",
  });
  return {
    stop: async () => {
      const complete = new Promise((resolve) => cdp.once("Tracing.tracingComplete", resolve));
      await cdp.send("Tracing.end");
      await complete;
      await cdp.detach();
      // The page's renderer main thread: the one that parsed its HTML.
      const parse = events.find((e) => e.name === "ParseHTML");
      const mine = events.filter((e) => parse && e.pid === parse.pid && e.tid === parse.tid && e.ph === "X" && typeof e.tdur === "number");
      const sum = (...names: string[]) => mine.filter((e) => names.includes(e.name)).reduce((total, e) => total + (e.tdur ?? 0), 0) / 1000;
      return {
        tasksMs: sum("RunTask"),
        parseHtmlMs: sum("ParseHTML"),
        evaluateModuleMs: sum("v8.evaluateModule"),
        styleLayoutMs: sum("UpdateLayoutTree", "Layout"),
      };
    },
  };
}
