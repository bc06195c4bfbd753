// Which model answers a sampling request. The server's `modelPreferences` are
// advice (the MCP spec leaves the choice to the client): the deployment lists the
// models servers may get in SAMPLING_MODELS, cheapest/fastest first and most capable
// last, and anything else gets the configured model.
//
// 1. Hints, in the server's order: a listed model (or the configured one) equal to
//    the hint, else the first listed model containing it (case-insensitive).
// 2. No hint matched: intelligencePriority above both cost and speed picks the last
//    listed model; cost or speed above intelligence picks the first.
// 3. Otherwise, or with no SAMPLING_MODELS: the configured model.
import type { ModelPreferences } from "@modelcontextprotocol/client";

export interface ModelChoice {
  model: string;
  /** Why, for the approval dialog: "hint \"sonnet\"", "intelligencePriority 0.9", "the configured model". */
  reason: string;
}

export function chooseSamplingModel(preferences: ModelPreferences | undefined, listed: readonly string[], configured: string): ModelChoice {
  const known = [configured, ...listed];
  for (const hint of preferences?.hints ?? []) {
    const wanted = hint.name?.trim().toLowerCase();
    if (!wanted) continue;
    const exact = known.find((m) => m.toLowerCase() === wanted);
    const partial = exact ?? listed.find((m) => m.toLowerCase().includes(wanted));
    if (partial) return { model: partial, reason: `hint "${hint.name}"` };
  }
  const first = listed[0];
  const last = listed[listed.length - 1];
  if (preferences && first !== undefined && last !== undefined) {
    const intelligence = preferences.intelligencePriority ?? 0;
    const cheap = Math.max(preferences.costPriority ?? 0, preferences.speedPriority ?? 0);
    if (intelligence > cheap) return { model: last, reason: `intelligencePriority ${intelligence}` };
    if (cheap > intelligence)
      return { model: first, reason: (preferences.costPriority ?? 0) >= (preferences.speedPriority ?? 0) ? `costPriority ${cheap}` : `speedPriority ${cheap}` };
  }
  return { model: configured, reason: "the configured model" };
}
