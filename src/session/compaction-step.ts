// The conversation as the model gets it, and compaction on the session's side: the
// current path's entries after the newest summary on it (with that summary for the
// system prompt), grouped by turn; and, when they grow past the budget's share (or on
// `/compact`), the oldest turns folded into a new summary entry recorded at the end of
// the last turn it covers (src/orchestrator/compaction.ts decides and asks the model).
import type { LlmProvider } from "../llm/provider";
import { summarize, turnsToFold } from "../orchestrator/compaction";
import type { TurnUsage } from "../orchestrator/transcript";
import type { HistoryStore, NewEntry, StoredEntry } from "./history";
import type { ModelView } from "./model-view";

export interface ModelHistory {
  /** The entries the model gets, in order. */
  entries: StoredEntry[];
  /** The newest summary on the path, standing in for the turns before it. */
  summary?: StoredEntry;
  /** The turns of `entries`, in path order (entries of no turn left out). */
  turns: { turnId: string; entries: StoredEntry[] }[];
}

export function modelHistory(store: HistoryStore): ModelHistory {
  const path = store.tree.path();
  const position = new Map(path.map((turn, i) => [turn, i]));
  const all = store.entries();
  const summary = all.filter((e) => e.kind === "summary" && e.summaryOf && position.has(e.summaryOf.upTo)).pop();
  const cut = summary?.summaryOf ? (position.get(summary.summaryOf.upTo) ?? -1) : -1;
  const entries = all.filter((e) => e.kind !== "summary" && (e.turnId === null || (position.get(e.turnId) ?? -1) > cut));
  const byTurn = new Map<string, StoredEntry[]>();
  for (const entry of entries) if (entry.turnId !== null) byTurn.set(entry.turnId, [...(byTurn.get(entry.turnId) ?? []), entry]);
  const turns = path.filter((t) => byTurn.has(t)).map((turnId) => ({ turnId, entries: byTurn.get(turnId) ?? [] }));
  return { entries, summary, turns };
}

export interface CompactionDeps {
  /** The model's view, kept between turns (model-view.ts). */
  view: ModelView;
  provider: LlmProvider;
  record: (entry: NewEntry) => void;
  signal: AbortSignal;
  budget: number;
}

/**
 * Folds the oldest turns into a summary when the model's view passed the budget's share
 * (or every turn, `all`), and records it. The turns folded, and the tokens it cost.
 */
export async function compact(deps: CompactionDeps, all: boolean): Promise<{ folded: number; usage?: TurnUsage }> {
  const view = deps.view.history();
  const built = await deps.view.turns();
  const turns = built.map((t) => t.messages);
  const count = all
    ? turns.length
    : turnsToFold(
        built.map((t) => t.tokens),
        deps.budget,
      );
  const last = view.turns[count - 1];
  if (count === 0 || !last) return { folded: 0 };
  const { text, usage } = await summarize(deps.provider, turns.slice(0, count), view.summary?.text, deps.signal);
  if (!text) return { folded: 0, usage };
  const before = view.summary?.summaryOf?.turns ?? 0;
  deps.record({ turnId: last.turnId, kind: "summary", text, summaryOf: { turns: before + count, upTo: last.turnId } });
  return { folded: count, usage };
}
