// withRetries around the real GeminiProvider: what it retries, what it never
// retries, and how long it waits (observed through an injected sleep).
import { describe, expect, inject, it } from "vitest";
import { GeminiProvider } from "../../../src/llm/gemini";
import { LlmError, type LlmRequest } from "../../../src/llm/provider";
import { abortableSleep, withRetries } from "../../../src/llm/retry";
import { collect, reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");
const ask: LlmRequest = { system: "", messages: [{ role: "user", text: "hi" }], tools: [] };

function setup(label: string): { key: string; gemini: GeminiProvider; waits: number[]; sleep: (ms: number) => Promise<void> } {
  const key = uniqueKey(label);
  const waits: number[] = [];
  return { key, gemini: new GeminiProvider({ apiKey: key, baseUrl: url }), waits, sleep: async (ms) => void waits.push(ms) };
}

describe("withRetries", () => {
  it("never retries once output has started, even when the failure is retryable", async () => {
    const { key, gemini, waits, sleep } = setup("started");
    await script(url, key, [reply.cut(1, "Partial answer", " and more"), reply.text("must not be requested")]);
    const { events, error } = await collect(withRetries(gemini, { sleep }).stream(ask));
    expect(events).toEqual([{ type: "text", delta: "Partial answer" }]);
    expect(error).toMatchObject({ retryable: true });
    expect((error as Error).message).not.toContain("attempts");
    expect(waits).toEqual([]);
    expect(await requests(url, key)).toHaveLength(1);
  });

  it("retries a connection cut before any output with exponential backoff", async () => {
    const { key, gemini, waits, sleep } = setup("early-cut");
    await script(url, key, [reply.cut(0, "lost"), reply.cut(0, "lost again"), reply.text("third time")]);
    const { events } = await collect(withRetries(gemini, { sleep, initialMs: 250 }).stream(ask));
    expect(events[0]).toEqual({ type: "text", delta: "third time" });
    expect(waits).toEqual([250, 500]);
  });

  it("passes on, unretried, a retry-after longer than maxMs", async () => {
    const { key, gemini, waits, sleep } = setup("too-long");
    await script(url, key, [reply.error(429, { "retry-after": "120" })]);
    const { error } = await collect(withRetries(gemini, { sleep, maxMs: 30_000 }).stream(ask));
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect((error as Error).message).toContain("not retried: the server asked to wait 120 s");
    expect(waits).toEqual([]);
  });

  it("caps the backoff at maxMs", async () => {
    const { key, gemini, waits, sleep } = setup("cap");
    await script(url, key, [reply.error(503), reply.error(503), reply.error(503), reply.error(503), reply.text("up")]);
    const { events } = await collect(withRetries(gemini, { sleep, tries: 5, initialMs: 1000, maxMs: 3000 }).stream(ask));
    expect(events[0]).toEqual({ type: "text", delta: "up" });
    expect(waits).toEqual([1000, 2000, 3000, 3000]);
  });

  it("stops waiting as soon as the request is cancelled", async () => {
    const { key, gemini } = setup("cancel-wait");
    await script(url, key, [reply.error(503, { "retry-after": "25" })]);
    const controller = new AbortController();
    let waiting!: (ms: number) => void;
    const waitStarted = new Promise<number>((resolve) => (waiting = resolve));
    // Asked to wait 25 s, it would wait ten minutes here: only the abort can end the test in time.
    const sleep = (ms: number, signal?: AbortSignal) => {
      waiting(ms);
      return abortableSleep(600_000, signal);
    };
    const run = collect(withRetries(gemini, { sleep }).stream({ ...ask, signal: controller.signal }));
    expect(await waitStarted).toBe(25_000);
    controller.abort();
    const { error } = await run;
    expect(error).toMatchObject({ name: "AbortError" });
    expect(await requests(url, key)).toHaveLength(1);
  });
});
