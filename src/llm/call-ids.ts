// Ids for tool calls the model did not name itself, and the model's own id of a call
// (the orchestrator gives every call an id of ours: src/orchestrator/turn.ts). `call_<n>` numbers continue
// after the calls already in the conversation, so ids stay unique across turns
// without randomness (which would make recorded requests unreproducible).
import type { ChatMessage, ToolCallRequest } from "./provider";

/** The id the model gave `call` (what it must get back), which may differ from ours. */
export function modelCallId(call: ToolCallRequest): string {
  const own = call.providerData?.modelCallId;
  return typeof own === "string" && own ? own : call.id;
}

export function callIdGenerator(messages: ChatMessage[]): () => string {
  // Read only when the model leaves a call unnamed, and without a set of every id: a long
  // conversation's calls were collected on every model request (issue 27).
  let n: number | undefined;
  return () => {
    n ??= highestCallNumber(messages);
    n += 1;
    return `call_${n}`;
  };
}

/** The highest n of the `call_<n>` ids in the conversation (0 when none): every id after it is free. */
function highestCallNumber(messages: ChatMessage[]): number {
  let highest = 0;
  const see = (id: string) => {
    if (!id.startsWith("call_")) return;
    const n = Number(id.slice(5));
    if (Number.isSafeInteger(n) && n > highest) highest = n;
  };
  for (const message of messages) {
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? []) {
        see(call.id);
        see(modelCallId(call));
      }
    if (message.role === "tool") for (const result of message.results) see(result.id);
  }
  return highest;
}
