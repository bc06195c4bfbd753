// OpenAiProvider inside workerd against the fake server's /v1/chat/completions:
// SSE text, tool_calls assembled from split argument deltas, bad arguments
// reported for the orchestrator, history mapping and errors.
import { describe, expect, inject, it } from "vitest";
import { OpenAiProvider } from "../../../src/llm/openai";
import { LlmError, type ChatMessage, type LlmRequest } from "../../../src/llm/provider";
import { collect, reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");

function setup(label: string): { key: string; openai: OpenAiProvider } {
  const key = uniqueKey(label);
  return { key, openai: new OpenAiProvider({ baseUrl: `${url}/v1`, model: "local-model", apiKey: key }) };
}

const ask = (messages: ChatMessage[] = [{ role: "user", text: "hi" }]): LlmRequest => ({
  system: "Be brief.",
  messages,
  tools: [{ name: "fs__read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }],
  temperature: 0.2,
});

describe("OpenAiProvider", () => {
  it("streams text and assembles tool calls whose arguments arrive split across chunks", async () => {
    const { key, openai } = setup("calls");
    await script(url, key, [
      reply.stream(
        [
          "Sure. ",
          reply.call("fs__read_file", { path: "notes/a.txt", head: 3 }, { id: "call_abc", pieces: 5 }),
          reply.call("fs__read_file", { path: "b.txt" }, { pieces: 4 }),
        ],
        {
          usage: { input: 40, output: 9 },
        },
      ),
    ]);
    const { events, error } = await collect(openai.stream(ask()));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text", delta: "Sure. " },
      { type: "tool_call", call: { id: "call_abc", name: "fs__read_file", arguments: { path: "notes/a.txt", head: 3 } } },
      { type: "tool_call", call: { id: "call_fake_1", name: "fs__read_file", arguments: { path: "b.txt" } } },
      { type: "usage", inputTokens: 40, outputTokens: 9 },
      { type: "done", finishReason: "tool_calls" },
    ]);
    const [request] = await requests(url, key);
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.auth).toBe("authorization");
    expect(request?.body).toEqual({
      model: "local-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "fs__read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } },
        },
      ],
      temperature: 0.2,
    });
  });

  it("reports arguments that are not JSON in providerData and echoes them back as written", async () => {
    const { key, openai } = setup("badjson");
    await script(url, key, [reply.text(reply.call("fs__read_file", '{"path": "a.txt"', { id: "call_x" })), reply.text("ok")]);
    const { events } = await collect(openai.stream(ask()));
    const call = events.find((e) => e.type === "tool_call");
    expect(call).toMatchObject({ call: { id: "call_x", name: "fs__read_file", arguments: {}, providerData: { rawArguments: '{"path": "a.txt"' } } });
    expect(call?.type === "tool_call" && call.call.providerData?.argumentsError).toMatch(/^arguments are not valid JSON: /);

    const history: ChatMessage[] = [
      { role: "user", text: "hi" },
      { role: "assistant", text: "", toolCalls: call?.type === "tool_call" ? [call.call] : [] },
      { role: "tool", results: [{ id: "call_x", name: "fs__read_file", error: "arguments are not valid JSON" }] },
    ];
    await collect(openai.stream(ask(history)));
    expect((await requests(url, key))[1]?.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_x", type: "function", function: { name: "fs__read_file", arguments: '{"path": "a.txt"' } }],
      },
      { role: "tool", tool_call_id: "call_x", content: '{"error":"arguments are not valid JSON"}' },
    ]);
  });

  it("maps tool results to tool messages, strings as they are and values as JSON", async () => {
    const { key, openai } = setup("history");
    await script(url, key, [reply.text("done")]);
    const history: ChatMessage[] = [
      { role: "user", text: "read both" },
      {
        role: "assistant",
        text: "Reading.",
        toolCalls: [
          { id: "c1", name: "fs__read_file", arguments: { path: "a" } },
          { id: "c2", name: "fs__read_file", arguments: { path: "b" } },
        ],
      },
      {
        role: "tool",
        results: [
          { id: "c1", name: "fs__read_file", result: "alpha" },
          { id: "c2", name: "fs__read_file", result: { lines: 2 } },
        ],
      },
    ];
    await collect(openai.stream(ask(history)));
    expect((await requests(url, key))[0]?.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "read both" },
      {
        role: "assistant",
        content: "Reading.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "fs__read_file", arguments: '{"path":"a"}' } },
          { id: "c2", type: "function", function: { name: "fs__read_file", arguments: '{"path":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "alpha" },
      { role: "tool", tool_call_id: "c2", content: '{"lines":2}' },
    ]);
  });

  it("turns a 429 into a retryable LlmError with the server's message and retry-after", async () => {
    const { key, openai } = setup("429");
    await script(url, key, [reply.error(429, { "retry-after": "3" }, { error: { message: "Rate limit reached", type: "requests" } })]);
    const { error } = await collect(openai.stream(ask()));
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3000, message: "OpenAI-compatible API error 429: Rate limit reached" });
  });

  it("fails with an LlmError and no tool_call when the stream is cut inside the arguments", async () => {
    const { key, openai } = setup("cut");
    // Events: text, call header, then argument pieces; the cut lands in the second piece.
    await script(url, key, [reply.cut(3, "Reading. ", reply.call("fs__read_file", { path: "a-long-file-name.txt" }, { pieces: 4 }))]);
    const { events, error } = await collect(openai.stream(ask()));
    expect(events).toEqual([{ type: "text", delta: "Reading. " }]);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toContain("interrupted");
  });
});
