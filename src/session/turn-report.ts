// What a turn's end tells beyond its own chat: one log line (after the `turn_end` frame is
// on its way), the operator's view (src/ops/Operations.ts), and the owner's spend.
import { modelRefText } from "../llm/registry";
import type { TurnEnd, TurnUsage } from "../orchestrator/transcript";
import type { TurnOutcomeReport } from "../ops/reports";
import type { Logger } from "../shared/logger";
import type { ResolvedModel } from "./session-model";
import type { TurnOrigin } from "./turn-deps";

export interface TurnEndDeps {
  log: Logger;
  report?: (report: TurnOutcomeReport) => void;
  used: (usage: TurnUsage, ownKey: boolean) => Promise<void>;
}

export interface EndedTurn {
  turnId: string;
  origin: TurnOrigin;
  model: Extract<ResolvedModel, { ok: true }>;
  reason: TurnEnd;
  usage?: TurnUsage;
  failure?: { code: string; message: string };
  /** Wall time from admission to the end. */
  ms: number;
  phases: Record<string, number>;
}

export async function reportTurnEnd(deps: TurnEndDeps, turn: EndedTurn): Promise<void> {
  const { turnId, origin, model, reason, usage } = turn;
  // At the object's next free moment: under wrangler dev a log line crosses the inspector
  // (about a millisecond); a next message goes first.
  setTimeout(() => {
    deps.log.info("turn ended", {
      ...origin,
      turnId,
      trace: turnId.replace(/-/g, ""),
      reason,
      ms: turn.ms,
      model: modelRefText(model.choice),
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      phases: turn.phases,
    });
  }, 0);
  deps.report?.({
    turnId,
    requestId: origin.requestId,
    reason,
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    error: turn.failure,
  });
  if (usage) await deps.used(usage, model.ownKey).catch(() => undefined);
}
