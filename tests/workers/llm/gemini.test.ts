// GeminiProvider inside workerd against the fake Gemini REST server: streaming,
// function calls, history mapping, errors, retries, cuts and cancellation.
import { describe, expect, inject, it } from "vitest";
import { GeminiProvider } from "../../../src/llm/gemini";
import { LlmError, type ChatMessage, type LlmRequest, type ToolDeclaration } from "../../../src/llm/provider";
import { withRetries } from "../../../src/llm/retry";
import { collect, geminiRetryBody, hangsClosed, reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");
const listTool: ToolDeclaration = {
  name: "fs__list_directory",
  description: "List a directory",
  parameters: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { path: { type: ["string", "null"] } },
    required: ["path"],
    additionalProperties: false,
  },
};

function setup(label: string): { key: string; gemini: GeminiProvider } {
  const key = uniqueKey(label);
  return { key, gemini: new GeminiProvider({ apiKey: key, model: "gemini-test", baseUrl: url }) };
}

const ask = (messages: ChatMessage[] = [{ role: "user", text: "hi" }], extra: Partial<LlmRequest> = {}): LlmRequest => ({
  system: "You are terse.",
  messages,
  tools: [listTool],
  temperature: 0.3,
  ...extra,
});

/** Records the waits instead of sleeping them. */
function recordingSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

describe("GeminiProvider", () => {
  it("streams text deltas, then usage and the finish reason, from streamGenerateContent", async () => {
    const { key, gemini } = setup("text");
    await script(url, key, [reply.stream(["Hel", "lo"], { usage: { input: 11, output: 2 } })]);
    const { events, error } = await collect(gemini.stream(ask()));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text", delta: "Hel" },
      { type: "text", delta: "lo" },
      { type: "usage", inputTokens: 11, outputTokens: 2 },
      { type: "done", finishReason: "STOP" },
    ]);
    const [request] = await requests(url, key);
    expect(request?.path).toBe("/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
    expect(request?.auth).toBe("x-goog-api-key");
    expect(request?.body).toMatchObject({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      systemInstruction: { parts: [{ text: "You are terse." }] },
      generationConfig: { temperature: 0.3 },
      tools: [
        {
          functionDeclarations: [
            {
              name: "fs__list_directory",
              description: "List a directory",
              // Sanitized: no $schema, no additionalProperties, nullable instead of a type array.
              parametersJsonSchema: { type: "object", properties: { path: { type: "string", nullable: true } }, required: ["path"] },
            },
          ],
        },
      ],
    });
    expect(JSON.stringify(request?.body)).not.toMatch(/\$schema|additionalProperties/);
  });

  it("turns each functionCall part into one tool_call, with Gemini's id or a generated call_<n>", async () => {
    const { key, gemini } = setup("calls");
    await script(url, key, [
      reply.text("Looking. ", reply.call("fs__list_directory", { path: "." }, { id: "fc-7" }), reply.call("fs__list_directory", { path: "src" })),
    ]);
    const { events } = await collect(gemini.stream(ask()));
    expect(events).toEqual([
      { type: "text", delta: "Looking. " },
      { type: "tool_call", call: { id: "fc-7", name: "fs__list_directory", arguments: { path: "." }, providerData: { functionCallId: "fc-7" } } },
      { type: "tool_call", call: { id: "call_1", name: "fs__list_directory", arguments: { path: "src" } } },
      { type: "usage", inputTokens: 12, outputTokens: 5 },
      { type: "done", finishReason: "STOP" },
    ]);
  });

  it("sends the thoughtSignature back with its call, and tool results as functionResponse parts", async () => {
    const { key, gemini } = setup("signature");
    await script(url, key, [reply.callReply("fs__list_directory", { path: "." }, { thoughtSignature: "sig-abc" }), reply.text("Two files.")]);
    const first = await collect(gemini.stream(ask()));
    const calls = first.events.flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
    expect(calls).toEqual([{ id: "call_1", name: "fs__list_directory", arguments: { path: "." }, providerData: { thoughtSignature: "sig-abc" } }]);

    const history: ChatMessage[] = [
      { role: "user", text: "hi" },
      { role: "assistant", text: "", toolCalls: [...calls, { id: "call_2", name: "fs__read_file", arguments: { path: "x" } }] },
      {
        role: "tool",
        results: [
          { id: "call_1", name: "fs__list_directory", result: { files: ["a", "b"] } },
          { id: "call_2", name: "fs__read_file", error: "ENOENT: x" },
        ],
      },
    ];
    const second = await collect(gemini.stream(ask(history)));
    expect(second.events[0]).toEqual({ type: "text", delta: "Two files." });
    const body = (await requests(url, key))[1]?.body;
    expect(body?.contents).toEqual([
      { role: "user", parts: [{ text: "hi" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "fs__list_directory", args: { path: "." } }, thoughtSignature: "sig-abc" },
          { functionCall: { name: "fs__read_file", args: { path: "x" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "fs__list_directory", response: { result: { files: ["a", "b"] } } } },
          { functionResponse: { name: "fs__read_file", response: { error: "ENOENT: x" } } },
        ],
      },
    ]);
  });

  it("sends the whole history on every call, each message's contents built once and rebuilt when the call it answers changes", async () => {
    const { key, gemini } = setup("history-kept");
    await script(url, key, [reply.text("one"), reply.text("two"), reply.text("three")]);
    const question: ChatMessage = { role: "user", text: "list it" };
    const call = { id: "c1", name: "fs__list_directory", arguments: { path: "." } };
    const results: ChatMessage = { role: "tool", results: [{ id: "c1", name: "fs__list_directory", result: "a b" }] };
    const history = [question, { role: "assistant", text: "", toolCalls: [call] } satisfies ChatMessage, results];
    await collect(gemini.stream(ask(history)));
    await collect(gemini.stream(ask([...history, { role: "assistant", text: "a and b" }, { role: "user", text: "again" }])));
    // The same result message after a call Gemini gave an id: its functionResponse must carry that id now.
    const withId = { role: "assistant", text: "", toolCalls: [{ ...call, providerData: { functionCallId: "g-1" } }] } satisfies ChatMessage;
    await collect(gemini.stream(ask([question, withId, results])));
    const [first, second, third] = (await requests(url, key)).map((r) => r.body?.contents as unknown[]);
    const response = (id?: string) => ({
      role: "user",
      parts: [{ functionResponse: { name: "fs__list_directory", ...(id ? { id } : {}), response: { result: "a b" } } }],
    });
    expect(first).toHaveLength(3);
    expect(first?.[2]).toEqual(response());
    expect(second).toEqual([...(first ?? []), { role: "model", parts: [{ text: "a and b" }] }, { role: "user", parts: [{ text: "again" }] }]);
    expect(third?.[1]).toEqual({ role: "model", parts: [{ functionCall: { name: "fs__list_directory", args: { path: "." }, id: "g-1" } }] });
    expect(third?.[2]).toEqual(response("g-1"));
  });

  it("waits the retry-after of a 429 and succeeds on the second request through withRetries", async () => {
    const { key, gemini } = setup("429");
    await script(url, key, [reply.error(429, { "retry-after": "1" }, geminiRetryBody("7s")), reply.text("ok")]);
    const { waits, sleep } = recordingSleep();
    const { events, error } = await collect(withRetries(gemini, { sleep }).stream(ask()));
    expect(error).toBeUndefined();
    expect(events[0]).toEqual({ type: "text", delta: "ok" });
    // The header wins over the body's RetryInfo.
    expect(waits).toEqual([1000]);
    expect(await requests(url, key)).toHaveLength(2);
  });

  it("reads Gemini's RetryInfo.retryDelay when there is no retry-after header", async () => {
    const { key, gemini } = setup("retryinfo");
    await script(url, key, [reply.error(429, {}, geminiRetryBody("2.5s"))]);
    const { error } = await collect(gemini.stream(ask()));
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 2500 });
    expect((error as LlmError).message).toContain("Resource has been exhausted");
  });

  it("gives up after three 500s with an LlmError naming the attempts, backing off 1 s then 2 s", async () => {
    const { key, gemini } = setup("500");
    await script(url, key, [reply.error(500), reply.error(500), reply.error(500)]);
    const { waits, sleep } = recordingSleep();
    const { events, error } = await collect(withRetries(gemini, { sleep, tries: 3, initialMs: 1000 }).stream(ask()));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toMatch(/Gemini API error 500.*gave up after 3 attempts/);
    expect(waits).toEqual([1000, 2000]);
    expect(await requests(url, key)).toHaveLength(3);
  });

  it("does not retry a 400, and never puts the key in the message", async () => {
    const { key, gemini } = setup("400");
    await script(url, key, [reply.error(400, {}, { error: { code: 400, message: "Invalid JSON payload", status: "INVALID_ARGUMENT" } })]);
    const { waits, sleep } = recordingSleep();
    const { error } = await collect(withRetries(gemini, { sleep }).stream(ask()));
    expect(error).toMatchObject({ status: 400, retryable: false, message: "Gemini API error 400 INVALID_ARGUMENT: Invalid JSON payload" });
    expect((error as Error).message).not.toContain(key);
    expect(waits).toEqual([]);
  });

  it("fails with an LlmError, not half a call, when the stream is cut inside a function call", async () => {
    const { key, gemini } = setup("cut");
    await script(url, key, [reply.cut(1, "Let me look. ", reply.call("fs__list_directory", { path: "." }))]);
    const { events, error } = await collect(gemini.stream(ask()));
    expect(events).toEqual([{ type: "text", delta: "Let me look. " }]);
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ status: undefined, retryable: true });
  });

  it("stops with an AbortError when the request is cancelled mid-stream", async () => {
    const { key, gemini } = setup("abort");
    await script(url, key, [reply.hang("Thinking")]);
    const controller = new AbortController();
    const iterator = gemini.stream(ask(undefined, { signal: controller.signal }))[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { type: "text", delta: "Thinking" } });
    controller.abort();
    // The scripted stream never ends by itself: only the abort can end this read.
    await expect(iterator.next()).rejects.toMatchObject({ name: "AbortError" });
    // The server saw the connection go away: nothing keeps running behind the cancelled turn.
    await hangsClosed(url, key);
  });

  it("ends an empty candidate with done and its finish reason", async () => {
    const { key, gemini } = setup("empty");
    await script(url, key, [reply.empty("SAFETY")]);
    const { events, error } = await collect(gemini.stream(ask()));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "usage", inputTokens: 3, outputTokens: 0 },
      { type: "done", finishReason: "SAFETY" },
    ]);
  });

  it("answers loudly when a test forgot to script a reply", async () => {
    const { gemini } = setup("unscripted");
    const { error } = await collect(gemini.stream(ask()));
    expect((error as Error).message).toContain("no scripted reply");
  });
});
