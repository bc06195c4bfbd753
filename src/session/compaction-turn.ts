// Compaction as the turn runner does it (the folding itself is compaction-step.ts): before
// a turn, when the model's context would overflow, and `/compact`, every turn so far
// folded now as a turn of its own (admitted and cancellable by the runner).
import type { LlmProvider } from "../llm/provider";
import type { TurnEnd, TurnUsage } from "../orchestrator/transcript";
import { toWire, type ServerMessage } from "../protocol/messages";
import { errorMessage, type Logger } from "../shared/logger";
import { compact } from "./compaction-step";
import type { HistoryStore, NewEntry } from "./history";
import type { ModelView } from "./model-view";

export interface CompactionDeps {
  view: ModelView;
  store: Pick<HistoryStore, "tree">;
  record: (entry: NewEntry) => void;
  broadcast: (message: ServerMessage) => void;
  log: Logger;
}

/**
 * Before the model's context would overflow, the oldest turns are summarized into one
 * entry. If that fails the turn goes on: pruning (prune.ts) keeps it under the budget,
 * and the user is told that older turns left the model's view.
 */
export async function compactBeforeTurn(
  deps: CompactionDeps,
  turnId: string | null,
  provider: LlmProvider,
  signal: AbortSignal,
  budget: number,
): Promise<TurnUsage | undefined> {
  try {
    return (await compact({ view: deps.view, provider, record: deps.record, signal, budget }, false)).usage;
  } catch (error) {
    if (signal.aborted) throw error;
    deps.log.warn("compaction failed", { error: errorMessage(error) });
    deps.record({
      turnId,
      kind: "notice",
      text: "Older turns could not be summarized: the model reads them as they are while they fit its budget, and past it the oldest leave its view.",
    });
    return undefined;
  }
}

/** `/compact` once admitted: the fold, then `turn_end` (complete, cancelled or error); resolves with the tokens it spent. */
export async function compactionTurn(
  deps: CompactionDeps,
  turn: { id: string; controller: AbortController; requestId?: string },
  provider: LlmProvider,
  budget: number,
): Promise<TurnUsage | undefined> {
  let reason: TurnEnd = "complete";
  let usage: TurnUsage | undefined;
  try {
    const done = await compact({ view: deps.view, provider, record: deps.record, signal: turn.controller.signal, budget }, true);
    usage = done.usage;
    if (done.folded === 0) deps.record({ turnId: deps.store.tree.leaf() ?? null, kind: "notice", text: "Nothing to compact yet." });
  } catch (error) {
    reason = turn.controller.signal.aborted ? "cancelled" : "error";
    if (reason === "error") {
      deps.log.warn("compaction failed", { requestId: turn.requestId, error: errorMessage(error) });
      deps.broadcast(toWire.error(error, turn.id));
    }
  }
  deps.broadcast({ type: "turn_end", turnId: turn.id, reason, usage });
  return usage;
}
