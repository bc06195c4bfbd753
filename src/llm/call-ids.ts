// Ids for tool calls the model did not name itself. `call_<n>` numbers continue
// after the calls already in the conversation, so ids stay unique across turns
// without randomness (which would make recorded requests unreproducible).
import type { ChatMessage } from "./provider";

export function callIdGenerator(messages: ChatMessage[]): () => string {
  const taken = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) taken.add(call.id);
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
