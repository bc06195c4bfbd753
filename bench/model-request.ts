// What building one Gemini request costs as a conversation grows, in this process (no
// network), from the model's view to the request's fetch: `GeminiProvider.stream` as it
// is (our toContents, then @google/genai with the contents in `extraBody`, converting only
// the newest one), against the SDK converting every part of every content (how the
// provider called it before, the baseline). Conversations of 3, 25 and 250 turns like
// bench:growth's (a message, a tool call, its result, an answer: 4 entries a turn), p50
// of 50 builds each, alternating, each size against the 3-turn one. A warm turn with a
// tool call builds two requests. Run: npm run bench:model-request
import { GoogleGenAI } from "@google/genai";
import { GeminiProvider, toContents } from "../src/llm/gemini";
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

// The fetch is the end of what is measured: it is stopped there.
let fetched = 0;
let bodyBytes = 0;
const stop = (async (_input: RequestInfo | URL, init?: RequestInit) => {
  fetched = performance.now();
  bodyBytes = String(init?.body ?? "").length;
  throw new Error("measured up to here");
}) as typeof fetch;
globalThis.fetch = stop;
const baseUrl = "http://127.0.0.1:9";
const sdk = new GoogleGenAI({ apiKey: "bench", httpOptions: { baseUrl } });
const provider = new GeminiProvider({ apiKey: "bench", baseUrl, fetch: stop });

/** Time from `start` to the fetch, the request stopped there. */
async function untilFetch(start: () => AsyncIterable<unknown> | Promise<AsyncIterable<unknown>>): Promise<number> {
  const t0 = performance.now();
  try {
    for await (const _ of await start()) break;
  } catch {
    // the stopped fetch
  }
  return fetched - t0;
}

const rows = new Map(SIZES.map((turns) => [turns, { before: [] as number[], now: [] as number[], bytes: 0 }]));
const conversations = new Map(SIZES.map((turns) => [turns, conversation(turns)]));
for (let round = 0; round < ROUNDS; round++) {
  for (const turns of SIZES) {
    const messages = conversations.get(turns) ?? [];
    const row = rows.get(turns);
    if (!row) continue;
    row.before.push(
      await untilFetch(() =>
        sdk.models.generateContentStream({ model: "gemini-2.5-flash", contents: toContents(messages), config: { systemInstruction: "bench" } }),
      ),
    );
    row.now.push(await untilFetch(() => provider.stream({ messages, tools: [], system: "bench" })));
    row.bytes = bodyBytes;
  }
}
const base = rows.get(SIZES[0] ?? 0);
const vs = (values: number[], baseline: number[] | undefined) => (baseline ? `${(p(values, 50) / p(baseline, 50)).toFixed(1)}x` : "-");
console.log(
  "| turns (entries) | request | SDK converts all, p50 ms | vs 3 turns | as sent now, p50 ms | vs 3 turns | saved per turn (2 requests) |\n|---|---:|---:|---:|---:|---:|---:|",
);
for (const [turns, row] of rows) {
  const saved = 2 * (p(row.before, 50) - p(row.now, 50));
  console.log(
    `| ${turns} (${turns * 4}) | ${(row.bytes / 1024).toFixed(1)} KB | ${ms(row.before)} | ${vs(row.before, base?.before)} | ${ms(row.now)} | ${vs(row.now, base?.now)} | ${saved.toFixed(2)} ms |`,
  );
}
