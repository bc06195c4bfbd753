// Compaction on the session's side: when the model's view (model-view.ts) grows past
// the budget's share (or on `/compact`), the oldest turns folded into a new summary
// entry recorded at the end of the last turn it covers (src/orchestrator/compaction.ts
// decides and asks the model). In a chat several people wrote in, the summary keeps who said what.
import type { LlmProvider } from "../llm/provider";
import { summarize, turnsToFold } from "../orchestrator/compaction";
import type { TurnUsage } from "../orchestrator/transcript";
import type { NewEntry } from "./history";
import type { ModelView } from "./model-view";
import { speakersNote } from "./speakers";

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
  // Turns several people wrote in go under their names (model-view.ts): the summarizer is told so, and keeps who said what.
  const owner = deps.view.speakers();
  const { text, usage } = await summarize(deps.provider, turns.slice(0, count), view.summary?.text, deps.signal, owner ? speakersNote(owner) : undefined);
  if (!text) return { folded: 0, usage };
  const before = view.summary?.summaryOf?.turns ?? 0;
  deps.record({ turnId: last.turnId, kind: "summary", text, summaryOf: { turns: before + count, upTo: last.turnId } });
  return { folded: count, usage };
}
