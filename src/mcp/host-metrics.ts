// What McpHost tells of its work: the metrics of its servers and cache (the operator's
// view, /admin) and each tool call that reached a server, timed, once it ended.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { z } from "zod";
import type { ErrorCode } from "../shared/error-codes";
import { EdgehostError } from "../shared/errors";
import { ServerMetricsSchema } from "../shared/metrics";
import { CacheStatsSchema } from "./cache";
import { ServerStateSchema } from "./connection";

export interface ToolCallRecord {
  server: string;
  tool: string;
  ms: number;
  ok: boolean;
  code?: ErrorCode;
}

export const HostMetricsSchema = z.object({
  servers: z.record(z.string(), ServerMetricsSchema.extend({ state: ServerStateSchema })),
  cache: CacheStatsSchema,
});
export type HostMetrics = z.infer<typeof HostMetricsSchema>;

/** Runs a tool call, telling `observe` (when given) how it ended and how long it took. */
export async function observedCall(
  observe: ((call: ToolCallRecord) => void) | undefined,
  now: () => number,
  record: { server: string; tool: string },
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  if (!observe) return run();
  const started = now();
  try {
    const result = await run();
    observe({ ...record, ms: now() - started, ok: result.isError !== true });
    return result;
  } catch (error) {
    observe({ ...record, ms: now() - started, ok: false, code: error instanceof EdgehostError ? error.code : "internal" });
    throw error;
  }
}
