// Turns stored history into model messages and cuts it to a token budget. The
// cut is by whole turns, oldest first, so a tool call is never separated from its
// result (providers reject a functionResponse without its functionCall).
import type { ChatMessage, ToolCallRequest, ToolCallResult } from "../llm/provider";
import type { TranscriptEntry } from "./transcript";

/** A rough count (4 characters a token) is enough to stay under a budget. */
export function estimateTokens(message: ChatMessage): number {
  const size =
    message.role === "tool"
      ? message.results.reduce((n, r) => n + r.name.length + JSON.stringify(r.result ?? r.error ?? "").length, 0)
      : message.text.length +
        (message.role === "assistant" ? JSON.stringify(message.toolCalls ?? []).length : 0) +
        (message.role === "user" ? (message.parts ?? []).reduce((n, p) => n + (p.type === "text" ? p.text.length : 0), 0) : 0);
  return Math.ceil(size / 4) + 4;
}

export interface Turn {
  messages: ChatMessage[];
  tokens: number;
}

export function historyToTurns(entries: readonly TranscriptEntry[]): ChatMessage[][] {
  const turns: ChatMessage[][] = [];
  let current: ChatMessage[] | undefined;
  let pendingCalls: ToolCallRequest[] = [];
  let pendingResults: ToolCallResult[] = [];
  const flushResults = () => {
    if (pendingResults.length > 0) current?.push({ role: "tool", results: pendingResults });
    pendingResults = [];
  };
  for (const entry of entries) {
    if (entry.kind === "user") {
      flushResults();
      current = [{ role: "user", text: entry.text ?? "", ...(entry.parts?.length ? { parts: entry.parts } : {}) }];
      turns.push(current);
    } else if (!current) {
    } else if (entry.kind === "assistant") {
      flushResults();
      const calls = entry.toolCalls ?? [];
      pendingCalls = calls;
      current.push({ role: "assistant", text: entry.text ?? "", toolCalls: calls.length > 0 ? calls : undefined });
    } else if (entry.kind === "tool_result" && entry.callId) {
      const call = pendingCalls.find((c) => c.id === entry.callId);
      if (!call) continue;
      pendingResults.push({ id: call.id, name: call.name, ...(entry.error !== undefined ? { error: entry.error } : { result: entry.result }) });
    }
  }
  flushResults();
  return turns.map(closeDanglingCalls);
}

/** A turn cut short (cancel, crash) can end with calls that never got results: answer them. */
function closeDanglingCalls(turn: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < turn.length; i++) {
    const message = turn[i] as ChatMessage;
    out.push(message);
    if (message.role !== "assistant" || !message.toolCalls?.length) continue;
    const next = turn[i + 1];
    const answered = new Set(next?.role === "tool" ? next.results.map((r) => r.id) : []);
    const missing = message.toolCalls
      .filter((c) => !answered.has(c.id))
      .map((c) => ({ id: c.id, name: c.name, error: "the call did not complete (cancelled or interrupted)" }));
    if (missing.length === 0) continue;
    if (next?.role === "tool") {
      turn[i + 1] = { role: "tool", results: [...next.results, ...missing] };
    } else {
      out.push({ role: "tool", results: missing });
    }
  }
  return out;
}

/** Keeps the newest whole turns that fit in `budget` tokens; the last turn is always kept. */
export function pruneToBudget(turns: ChatMessage[][], budget: number): { messages: ChatMessage[]; droppedTurns: number } {
  return pruneSized(
    turns.map((messages) => ({ messages, tokens: messages.reduce((n, m) => n + estimateTokens(m), 0) })),
    budget,
  );
}

/** pruneToBudget for turns already measured (src/session/model-view.ts keeps them measured). */
export function pruneSized(sized: readonly Turn[], budget: number): { messages: ChatMessage[]; droppedTurns: number } {
  const kept: Turn[] = [];
  let used = 0;
  for (let i = sized.length - 1; i >= 0; i--) {
    const turn = sized[i] as Turn;
    if (kept.length > 0 && used + turn.tokens > budget) break;
    kept.unshift(turn);
    used += turn.tokens;
  }
  return { messages: kept.flatMap((t) => t.messages), droppedTurns: sized.length - kept.length };
}
