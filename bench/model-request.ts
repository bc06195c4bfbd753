// What building one Gemini request costs as a conversation grows, in this process (no
// network): our conversion of the model's view into Gemini contents (`toContents`), and
// @google/genai's own work from `generateContentStream` until its fetch (it converts every
// part to the API's shape and serializes the body). Conversations of 3, 25 and 250 turns
// like bench:growth's (a message, a tool call, its result, an answer: 4 entries a turn),
// p50 of 50 builds each, alternating, each size against the 3-turn one. A warm turn with
// a tool call builds two requests. Run: npm run bench:model-request
import { GoogleGenAI } from "@google/genai";
import { toContents } from "../src/llm/gemini";
import type { ChatMessage } from "../src/llm/provider";
import { p } from "./lib/turn-report";

const ms = (values: number[]) => p(values, 50).toFixed(3);

const SIZES = [3, 25, 250];
const ROUNDS = 50;

function conversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let i = 0; i < turns; i++) {
    const id = `turn-${i}.0.0`;
    messages.push({ role: "user", text: `warm ${i}` });
    const call = { id, name: "filesystem__list_directory", arguments: { path: "/tmp/stack-fs-bench" }, providerData: { modelCallId: `call_${i + 1}` } };
    messages.push({ role: "assistant", text: "", toolCalls: [call] });
    messages.push({ role: "tool", results: [{ id, name: call.name, result: { content: "[FILE] notes.txt\n[DIR] sub" } }] });
    messages.push({ role: "assistant", text: "done" });
  }
  return messages;
}

// The SDK's fetch is the end of what is measured: it is stopped there.
let fetched = 0;
globalThis.fetch = (async () => {
  fetched = performance.now();
  throw new Error("measured up to here");
}) as typeof fetch;
const ai = new GoogleGenAI({ apiKey: "bench", httpOptions: { baseUrl: "http://127.0.0.1:9" } });

const rows = new Map(SIZES.map((turns) => [turns, { ours: [] as number[], sdk: [] as number[], bytes: 0 }]));
const conversations = new Map(SIZES.map((turns) => [turns, conversation(turns)]));
for (let round = 0; round < ROUNDS; round++) {
  for (const turns of SIZES) {
    const messages = conversations.get(turns) ?? [];
    const row = rows.get(turns);
    const t0 = performance.now();
    const contents = toContents(messages);
    const t1 = performance.now();
    try {
      for await (const _ of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents, config: { systemInstruction: "bench" } })) break;
    } catch {
      // the stopped fetch
    }
    row?.ours.push(t1 - t0);
    row?.sdk.push(fetched - t1);
    if (row) row.bytes = JSON.stringify(contents).length;
  }
}
const base = rows.get(SIZES[0] ?? 0);
console.log("| turns (entries) | contents | toContents p50 ms | SDK until fetch p50 ms | vs 3 turns |\n|---|---:|---:|---:|---:|");
for (const [turns, row] of rows) {
  const ratio = base ? (p(row.sdk, 50) / p(base.sdk, 50)).toFixed(1) : "-";
  console.log(`| ${turns} (${turns * 4}) | ${(row.bytes / 1024).toFixed(1)} KB | ${ms(row.ours)} | ${ms(row.sdk)} | ${ratio}x |`);
}
