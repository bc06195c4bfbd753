// Call counters and latency percentiles per server and per tool. Latencies live in
// a fixed ring so recording a call is O(1) and memory stays bounded. The snapshot
// shapes are zod schemas: the HTTP API returns exactly these.
import { z } from "zod";

const WINDOW = 1024;

export type CallOutcome = "ok" | "error" | "timeout";

export const CallStatsSchema = z.object({
  calls: z.number(),
  errors: z.number(),
  timeouts: z.number(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
});
export type CallStatsSnapshot = z.infer<typeof CallStatsSchema>;

export class CallStats {
  calls = 0;
  errors = 0;
  timeouts = 0;
  private readonly window = new Float64Array(WINDOW);
  private filled = 0;
  private next = 0;

  record(ms: number, outcome: CallOutcome): void {
    this.calls++;
    if (outcome === "error") this.errors++;
    else if (outcome === "timeout") {
      this.errors++;
      this.timeouts++;
    }
    this.window[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
    if (this.filled < WINDOW) this.filled++;
  }

  snapshot(): CallStatsSnapshot {
    const sorted = this.window.slice(0, this.filled).sort();
    return {
      calls: this.calls,
      errors: this.errors,
      timeouts: this.timeouts,
      p50Ms: percentile(sorted, 0.5),
      p95Ms: percentile(sorted, 0.95),
    };
  }
}

export function percentile(sorted: Float64Array | number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  const value = sorted[index] ?? 0;
  return Math.round(value * 1000) / 1000;
}

export const ServerMetricsSchema = CallStatsSchema.extend({ tools: z.record(z.string(), CallStatsSchema) });
export type ServerMetrics = z.infer<typeof ServerMetricsSchema>;

/** Stats of one server: the server's totals plus one entry per tool it was asked for. */
export class ServerStats {
  readonly total = new CallStats();
  private readonly tools = new Map<string, CallStats>();

  tool(name: string): CallStats {
    let stats = this.tools.get(name);
    if (!stats) {
      stats = new CallStats();
      this.tools.set(name, stats);
    }
    return stats;
  }

  record(tool: string | undefined, ms: number, outcome: CallOutcome): void {
    this.total.record(ms, outcome);
    if (tool !== undefined) this.tool(tool).record(ms, outcome);
  }

  snapshot(): ServerMetrics {
    const tools: Record<string, CallStatsSnapshot> = {};
    for (const [name, stats] of this.tools) tools[name] = stats.snapshot();
    return { ...this.total.snapshot(), tools };
  }
}
