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
  const taken = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) taken.add(call.id).add(modelCallId(call));
    if (message.role === "tool") for (const result of message.results) taken.add(result.id);
  }
  let n = taken.size;
  return () => {
    let id: string;
    do id = `call_${++n}`;
    while (taken.has(id));
    taken.add(id);
    return id;
  };
}
