// A turn the object's restart cut off (its id was still stored as running): closed
// honestly instead of left open. What it had streamed of an answer stays, marked cut
// short; each call that got no result gets one saying it was interrupted; an error
// entry says to press Retry.
import type { HistoryStore, NewEntry } from "./history";
import type { StreamedText } from "./streamed-text";

export interface InterruptedTurnDeps {
  store: Pick<HistoryStore, "entries">;
  record: (entry: NewEntry) => void;
  streamed: Pick<StreamedText, "takeSaved">;
}

export function closeInterrupted(turnId: string, { store, record, streamed }: InterruptedTurnDeps): void {
  const text = streamed.takeSaved(turnId);
  if (text) record({ turnId, kind: "assistant", text, partial: true });
  const entries = store.entries().filter((e) => e.turnId === turnId);
  for (const call of entries.filter((e) => e.kind === "tool_call")) {
    if (entries.some((e) => e.kind === "tool_result" && e.callId === call.callId)) continue;
    record({
      turnId,
      kind: "tool_result",
      callId: call.callId,
      server: call.server,
      tool: call.tool,
      error: "The call was interrupted (the session restarted).",
      durationMs: 0,
    });
  }
  record({ turnId, kind: "error", text: "This turn was interrupted (the session restarted): press Retry to run it again." });
}
