// The conversation a turn's first model request is built from. While the turn's opening
// is not written yet (deferred-opening.ts), its entries join the stored turns in memory,
// built as stored ones are (attached contents included); when the view is past the
// budget's share the opening is written first and compaction folds the stored history,
// as it always did (a summary is recorded after the turn's question).
import type { LlmProvider } from "../llm/provider";
import { turnsToFold } from "../orchestrator/compaction";
import type { TurnUsage } from "../orchestrator/transcript";
import { compactBeforeTurn, type CompactionDeps } from "./compaction-turn";
import type { DeferredOpening } from "./deferred-opening";
import type { BuiltTurn } from "./model-view";
import type { TurnOpening } from "./prompt-opening";

export interface FirstRequest {
  turnId: string;
  provider: LlmProvider;
  opening: DeferredOpening;
  question: TurnOpening;
  signal: AbortSignal;
  /** HISTORY_TOKEN_BUDGET. */
  budget: number;
}

export async function firstConversation(compaction: CompactionDeps, turn: FirstRequest): Promise<{ conversation: BuiltTurn[]; compacted?: TurnUsage }> {
  const { turnId, opening, question, budget } = turn;
  const { view } = compaction;
  if (opening.pending) {
    const at = Date.now();
    // Not stored, so no seq yet: after every stored one, in order (the model's messages do not use it).
    const entries = question.entries.map((entry, i) => ({ turnId, ...entry, seq: Number.MAX_SAFE_INTEGER - question.entries.length + i, createdAt: at }));
    const asked = await view.unstored(turnId, entries);
    // The model's view, kept from the last turn and brought up to date (model-view.ts); files' bytes are read
    // from R2 (session-files.ts), all the new user entries' parts at once.
    // The stored turns are labelled as the question is (its sender may be the first besides the owner: speakers.ts).
    const conversation = [...(await view.turns(entries)), asked];
    // Opened meanwhile (an MCP notice of this turn), the stored view has it already.
    if (
      opening.pending &&
      turnsToFold(
        conversation.map((t) => t.tokens),
        budget,
      ) === 0
    )
      return { conversation };
  }
  // A dropped turn asks nothing: its signal is aborted, so the turn ends at its first step.
  if (opening.skipped) return { conversation: [] };
  opening.now();
  const compacted = await compactBeforeTurn(compaction, turnId, turn.provider, turn.signal, budget);
  return { conversation: await view.turns(), compacted };
}
