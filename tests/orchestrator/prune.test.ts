// How a session's stored history becomes the model's conversation: entries grouped
// into whole turns (calls answered, dangling calls closed), sized by the token
// estimate, and cut to the budget by whole turns, oldest first.
import { describe, expect, it } from "vitest";
import type { ChatMessage, ToolCallRequest } from "../../src/llm/provider";
import { estimateTokens, historyToTurns, pruneToBudget } from "../../src/orchestrator/prune";
import type { TranscriptEntry } from "../../src/orchestrator/transcript";

const call = (id: string, name = "filesystem__list_directory", args: Record<string, unknown> = { path: "/tmp" }): ToolCallRequest => ({
  id,
  name,
  arguments: args,
});

/** One stored turn: the user's message and the model's answer. */
const plainTurn = (question: string, answer: string): TranscriptEntry[] => [
  { kind: "user", text: question },
  { kind: "assistant", text: answer },
];

const sizeOf = (messages: ChatMessage[]) => messages.reduce((n, m) => n + estimateTokens(m), 0);

describe("estimateTokens", () => {
  it("counts about one token per four characters of text", () => {
    const short = estimateTokens({ role: "user", text: "a".repeat(400) });
    const long = estimateTokens({ role: "user", text: "a".repeat(4_000) });
    expect(long - short).toBe((4_000 - 400) / 4);
    // Never under a quarter of the characters, so a budget in tokens bounds the characters sent.
    expect(long).toBeGreaterThanOrEqual(4_000 / 4);
  });

  it("counts an assistant's tool calls with their arguments", () => {
    const bare = estimateTokens({ role: "assistant", text: "let me look" });
    const small = estimateTokens({ role: "assistant", text: "let me look", toolCalls: [call("1", "t", { q: "x" })] });
    const big = estimateTokens({ role: "assistant", text: "let me look", toolCalls: [call("1", "t", { q: "x".repeat(2_001) })] });
    expect(small).toBeGreaterThan(bare);
    expect(big - small).toBe(2_000 / 4);
  });

  it("counts a user message's attached text, not its media", () => {
    const text = estimateTokens({ role: "user", text: "see this" });
    const withText = estimateTokens({ role: "user", text: "see this", parts: [{ type: "text", text: "b".repeat(800) }] });
    const withImage = estimateTokens({ role: "user", text: "see this", parts: [{ type: "image", mimeType: "image/png", data: "c".repeat(800) }] });
    expect(withText - text).toBe(800 / 4);
    // Media are held to their own budget per turn (tool-results.ts), not to the history's.
    expect(withImage).toBe(text);
  });

  it("counts a tool message's results and errors, each with its tool's name", () => {
    const result = (chars: number) => estimateTokens({ role: "tool", results: [{ id: "1", name: "t", result: { listing: "d".repeat(chars) } }] });
    const error = (chars: number) => estimateTokens({ role: "tool", results: [{ id: "1", name: "t", error: "e".repeat(chars) }] });
    expect(result(2_000) - result(1_000)).toBe(1_000 / 4);
    expect(error(2_000) - error(1_000)).toBe(1_000 / 4);
    const both = estimateTokens({
      role: "tool",
      results: [
        { id: "1", name: "t", result: { listing: "d".repeat(1_000) } },
        { id: "2", name: "t", error: "e".repeat(1_000) },
      ],
    });
    expect(both - result(1_000)).toBeGreaterThanOrEqual(1_000 / 4);
    // A result with neither (a tool that returned nothing) still costs its name.
    const named = (name: string) => estimateTokens({ role: "tool", results: [{ id: "1", name }] });
    expect(named("n".repeat(41)) - named("n")).toBe(40 / 4);
  });
});

describe("historyToTurns", () => {
  it("makes one turn per user message, with each step's calls answered by their results in the model's order", () => {
    const turns = historyToTurns([
      ...plainTurn("hello", "hi"),
      { kind: "user", text: "list and read" },
      { kind: "assistant", text: "", toolCalls: [call("t2.0.0"), call("t2.0.1", "filesystem__read_text_file")] },
      { kind: "tool_call", callId: "t2.0.0" },
      { kind: "tool_call", callId: "t2.0.1" },
      // Parallel calls finish in any order; the stored order is completion order.
      { kind: "tool_result", callId: "t2.0.1", result: "notes" },
      { kind: "tool_result", callId: "t2.0.0", error: "Access denied" },
      { kind: "assistant", text: "done" },
    ]);
    expect(turns).toEqual([
      [
        { role: "user", text: "hello" },
        { role: "assistant", text: "hi", toolCalls: undefined },
      ],
      [
        { role: "user", text: "list and read" },
        { role: "assistant", text: "", toolCalls: [call("t2.0.0"), call("t2.0.1", "filesystem__read_text_file")] },
        {
          role: "tool",
          results: [
            { id: "t2.0.1", name: "filesystem__read_text_file", result: "notes" },
            { id: "t2.0.0", name: "filesystem__list_directory", error: "Access denied" },
          ],
        },
        { role: "assistant", text: "done", toolCalls: undefined },
      ],
    ]);
  });

  it("leaves out what the model never said: notices, errors, entries before the first message, results of calls it did not make", () => {
    const turns = historyToTurns([
      { kind: "notice", text: "Configuration: MAX_STEPS is invalid" },
      { kind: "assistant", text: "orphan answer" },
      { kind: "user", text: "go" },
      { kind: "notice", text: "Configuration: something" },
      { kind: "assistant", text: "", toolCalls: [call("a")] },
      { kind: "tool_result", callId: "a", result: "ok" },
      { kind: "tool_result", callId: "not-a-call", result: "stray" },
      { kind: "tool_result", result: "no call id" },
      { kind: "error", text: "Unexpected error: the turn failed." },
    ]);
    expect(turns).toEqual([
      [
        { role: "user", text: "go" },
        { role: "assistant", text: "", toolCalls: [call("a")] },
        { role: "tool", results: [{ id: "a", name: "filesystem__list_directory", result: "ok" }] },
      ],
    ]);
  });

  it("keeps a user message's attached parts, and gives an empty one none", () => {
    const parts = [{ type: "text" as const, text: "attached file" }];
    const [withParts, withoutParts, noText] = historyToTurns([
      { kind: "user", text: "see", parts },
      { kind: "user", text: "again", parts: [] },
      { kind: "user" },
    ]);
    expect(withParts).toEqual([{ role: "user", text: "see", parts }]);
    expect(withoutParts).toEqual([{ role: "user", text: "again" }]);
    expect(noText).toEqual([{ role: "user", text: "" }]);
  });

  it("answers calls a cut-short turn left without results, so the provider gets every call paired", () => {
    const [cancelled, partlyAnswered, next] = historyToTurns([
      // Cancelled while both calls ran: no results at all.
      { kind: "user", text: "first" },
      { kind: "assistant", text: "", toolCalls: [call("x"), call("y")] },
      // Interrupted after one of two results.
      { kind: "user", text: "second" },
      { kind: "assistant", text: "", toolCalls: [call("p"), call("q")] },
      { kind: "tool_result", callId: "q", result: "done" },
      { kind: "assistant", text: "partial answer" },
      ...plainTurn("third", "fine"),
    ]);
    const missing = (id: string) => ({ id, name: "filesystem__list_directory", error: expect.stringMatching(/did not complete/) });
    expect(cancelled).toEqual([
      { role: "user", text: "first" },
      { role: "assistant", text: "", toolCalls: [call("x"), call("y")] },
      { role: "tool", results: [missing("x"), missing("y")] },
    ]);
    expect(partlyAnswered).toEqual([
      { role: "user", text: "second" },
      { role: "assistant", text: "", toolCalls: [call("p"), call("q")] },
      { role: "tool", results: [{ id: "q", name: "filesystem__list_directory", result: "done" }, missing("p")] },
      { role: "assistant", text: "partial answer", toolCalls: undefined },
    ]);
    expect(next).toEqual([
      { role: "user", text: "third" },
      { role: "assistant", text: "fine", toolCalls: undefined },
    ]);
  });
});

describe("pruneToBudget", () => {
  /** `count` stored turns of `chars` characters each way, numbered from 0 (oldest). */
  const conversation = (count: number, chars: number) =>
    historyToTurns(Array.from({ length: count }, (_, i) => plainTurn(`q${i} ${"x".repeat(chars)}`, `a${i} ${"y".repeat(chars)}`)).flat());

  it("sends the whole history when it fits", () => {
    const turns = conversation(5, 100);
    const { messages, droppedTurns } = pruneToBudget(turns, sizeOf(turns.flat()));
    expect(droppedTurns).toBe(0);
    expect(messages).toEqual(turns.flat());
  });

  it("drops the oldest whole turns and keeps as many of the newest as fit", () => {
    const turns = conversation(10, 400);
    const budget = Math.floor(sizeOf(turns.flat()) / 2);
    const { messages, droppedTurns } = pruneToBudget(turns, budget);
    const kept = turns.slice(droppedTurns);
    expect(messages).toEqual(kept.flat());
    expect(droppedTurns).toBeGreaterThan(0);
    expect(sizeOf(messages)).toBeLessThanOrEqual(budget);
    // One more (older) turn would not have fit.
    expect(sizeOf(turns.slice(droppedTurns - 1).flat())).toBeGreaterThan(budget);
  });

  it("never separates a tool call from its result", () => {
    const history: TranscriptEntry[] = [];
    for (let i = 0; i < 6; i++) {
      history.push(
        { kind: "user", text: `q${i}` },
        { kind: "assistant", text: "", toolCalls: [call(`c${i}`)] },
        { kind: "tool_result", callId: `c${i}`, result: "r".repeat(1_000) },
        { kind: "assistant", text: `a${i}` },
      );
    }
    const turns = historyToTurns(history);
    const perTurn = sizeOf(turns[0] ?? []);
    for (const budget of [perTurn - 1, perTurn, perTurn + 1, 2 * perTurn + 3, 5 * perTurn - 1]) {
      const { messages } = pruneToBudget(turns, budget);
      expect(messages[0]?.role).toBe("user");
      const calls = messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
      const results = messages.flatMap((m) => (m.role === "tool" ? m.results.map((r) => r.id) : []));
      expect(results).toEqual(calls);
    }
  });

  it("keeps the newest turn even when it alone is over the budget", () => {
    const turns = [...conversation(2, 10), ...conversation(1, 40_000)];
    const { messages, droppedTurns } = pruneToBudget(turns, 1_000);
    expect(droppedTurns).toBe(2);
    expect(messages).toEqual(turns[2]);
  });

  it("cuts at the first turn that does not fit: an older, smaller one is not sent out of order", () => {
    const [small] = conversation(1, 10);
    const [big] = conversation(1, 4_000);
    const [newest] = conversation(1, 10);
    const turns = [small ?? [], big ?? [], newest ?? []];
    const { messages, droppedTurns } = pruneToBudget(turns, sizeOf([...(small ?? []), ...(newest ?? [])]) + 1);
    expect(droppedTurns).toBe(2);
    expect(messages).toEqual(newest);
  });
});
