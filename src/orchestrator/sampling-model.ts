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

/** A model of the session's registry (src/llm/registry.ts), as sampling chooses among them. */
export interface SamplingRef {
  provider: string;
  model: string;
}

export interface RegistryChoice {
  ref: SamplingRef;
  reason: string;
}

const refText = (ref: SamplingRef) => `${ref.provider}/${ref.model}`;
const sameRef = (a: SamplingRef, b: SamplingRef) => a.provider === b.provider && a.model === b.model;

/**
 * SAMPLING_MODELS as models of the registry, cheapest first: `provider/model` names a
 * provider's model; a bare name is a model of the session's provider (else of the first
 * provider offering it). An entry naming no provider of the session is left out.
 */
export function rankedSamplingModels(listed: readonly string[], offered: readonly SamplingRef[], current: SamplingRef): SamplingRef[] {
  const providers = new Set([current.provider, ...offered.map((o) => o.provider)]);
  return listed.flatMap((entry): SamplingRef[] => {
    const slash = entry.indexOf("/");
    const provider = slash > 0 ? entry.slice(0, slash) : "";
    if (providers.has(provider)) return [{ provider, model: entry.slice(slash + 1) }];
    const owner = offered.find((o) => o.model === entry && o.provider === current.provider) ?? offered.find((o) => o.model === entry);
    return [{ provider: owner?.provider ?? current.provider, model: entry }];
  });
}

/**
 * The model for a sampling request among every model the session may use (the same
 * registry as its own model), by the server's `modelPreferences`:
 *
 * 1. Hints, in the server's order: a model whose `provider/model` or name equals the hint,
 *    the session's own first; else the first SAMPLING_MODELS entry containing it; else the
 *    first offered model containing it, the session's provider first (case-insensitive).
 * 2. No hint matched: the priorities over SAMPLING_MODELS, as chooseSamplingModel.
 * 3. Otherwise the session's model.
 */
export function chooseFromRegistry(
  preferences: ModelPreferences | undefined,
  options: { current: SamplingRef; offered: readonly SamplingRef[]; ranked: readonly SamplingRef[] },
): RegistryChoice {
  const { current, ranked } = options;
  const ownFirst = [current, ...options.offered.filter((o) => o.provider === current.provider), ...options.offered];
  const known = [current, ...options.offered, ...ranked];
  for (const hint of preferences?.hints ?? []) {
    const wanted = hint.name?.trim().toLowerCase();
    if (!wanted) continue;
    const exact = known.find((m) => refText(m).toLowerCase() === wanted) ?? ownFirst.find((m) => m.model.toLowerCase() === wanted);
    const found = exact ?? ranked.find((m) => refText(m).toLowerCase().includes(wanted)) ?? ownFirst.find((m) => refText(m).toLowerCase().includes(wanted));
    if (found) return { ref: found, reason: `hint "${hint.name}"` };
  }
  const legacy = chooseSamplingModel(preferences, ranked.map(refText), refText(current));
  const picked = ranked.find((m) => refText(m) === legacy.model);
  if (picked && !sameRef(picked, current)) return { ref: picked, reason: legacy.reason };
  return { ref: current, reason: "the session's model" };
}
