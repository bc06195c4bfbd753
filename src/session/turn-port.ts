// The orchestrator's view of a session for one turn (orchestrator/transcript.ts TurnPort):
// entries stored and broadcast, each answer marked with the model that gave it, streamed
// text kept for pages that join mid-answer (streamed-text.ts), tool status broadcast and
// approvals asked of the person.
import type { Approvals } from "../approval/approvals";
import type { AskedBy } from "../audit/record";
import type { TurnEntry, TurnPort, TurnUsage } from "../orchestrator/transcript";
import type { AuditedCall } from "./audit-sink";
import type { ServerMessage } from "../protocol/messages";
import type { NewEntry } from "./history";
import type { StreamedText } from "./streamed-text";

export interface TurnPortDeps {
  record: (entry: NewEntry) => void;
  broadcast: (message: ServerMessage) => void;
  approvals: Pick<Approvals, "decideTool">;
  streamed: Pick<StreamedText, "add" | "settle">;
  audit?: (call: AuditedCall) => void;
}

/** `askedBy`: who the turn's calls are recorded as asked by (the model for a person, or a schedule). */
export function turnPort(
  { record, broadcast, approvals, streamed, audit }: TurnPortDeps,
  turnId: string,
  signal: AbortSignal,
  model: string,
  askedBy: AskedBy = { kind: "model" },
): TurnPort {
  return {
    record: (entry: TurnEntry) => {
      if (entry.kind === "assistant") streamed.settle();
      record({ turnId, ...entry, ...(entry.kind === "assistant" ? { model } : {}) });
    },
    text: (messageId, delta) => {
      streamed.add(turnId, messageId, delta);
      broadcast({ type: "text", turnId, messageId, delta });
    },
    status: (status) => broadcast({ type: "status", turnId, ...status }),
    approve: (question) => approvals.decideTool(turnId, question, signal),
    audited: (call) => audit?.({ ...call, turnId, askedBy }),
  };
}

/** A turn's tokens with those its compaction spent. */
export function addUsage(a: TurnUsage, b: TurnUsage | undefined): TurnUsage {
  return b ? { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens } : a;
}
