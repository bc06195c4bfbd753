// AnthropicProvider (the official @anthropic-ai/sdk) inside workerd against the fake
// server's /v1/messages, which streams Anthropic's named SSE events: text, tool_use
// blocks whose input arrives in pieces, usage, images in and out, errors, cuts and
// cancellation.
import { describe, expect, inject, it } from "vitest";
import { AnthropicProvider } from "../../../src/llm/anthropic";
import { LlmError, type ChatMessage, type LlmRequest } from "../../../src/llm/provider";
import { createRegistry } from "../../../src/llm/select";
import { collect, hangsClosed, reply, requests, script, scriptModels, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function setup(label: string): { key: string; claude: AnthropicProvider } {
  const key = uniqueKey(label);
  return { key, claude: new AnthropicProvider({ apiKey: key, model: "claude-test", baseUrl: url }) };
}

const readTool = {
  name: "fs__read_file",
  description: "Read a file",
  parameters: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { path: { type: "string" } } },
};
const ask = (messages: ChatMessage[] = [{ role: "user", text: "hi" }], extra: Partial<LlmRequest> = {}): LlmRequest => ({
  system: "Be brief.",
  messages,
  tools: [readTool],
  temperature: 0.2,
  ...extra,
});

describe("AnthropicProvider", () => {
  it("streams text, then tool calls whose input arrived in pieces, usage and the stop reason", async () => {
    const { key, claude } = setup("calls");
    await script(url, key, [
      reply.stream(["Sure", ". ", reply.call("fs__read_file", { path: "notes/a.txt", head: 3 }, { id: "toolu_01", pieces: 5 })], {
        usage: { input: 40, output: 9 },
      }),
    ]);
    const { events, error } = await collect(claude.stream(ask()));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text", delta: "Sure" },
      { type: "text", delta: ". " },
      { type: "tool_call", call: { id: "toolu_01", name: "fs__read_file", arguments: { path: "notes/a.txt", head: 3 } } },
      { type: "usage", inputTokens: 40, outputTokens: 9 },
      { type: "done", finishReason: "tool_use" },
    ]);
    const [request] = await requests(url, key);
    expect(request?.path).toBe("/v1/messages");
    // The SDK (1.13) sends the key as a bearer token.
    expect(request?.auth).toBe("authorization");
    expect(request?.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      stream: true,
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{ name: "fs__read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } } } }],
      temperature: 0.2,
    });
  });

  it("sends calls of other providers as tool_use with ids it accepts, results as tool_result with their images inside", async () => {
    const { key, claude } = setup("history");
    await script(url, key, [reply.text("done")]);
    const history: ChatMessage[] = [
      { role: "user", text: "look", parts: [{ type: "image", mimeType: "image/png", data: PNG }] },
      {
        role: "assistant",
        text: "",
        toolCalls: [
          // A Gemini call without an id of its own (ours has dots), and an OpenAI one.
          { id: "turn-1.0.0", name: "fs__read_file", arguments: { path: "a" } },
          { id: "turn-1.0.1", name: "fs__read_file", arguments: { path: "b" }, providerData: { modelCallId: "call_abc" } },
        ],
      },
      {
        role: "tool",
        results: [
          {
            id: "turn-1.0.0",
            name: "fs__read_file",
            result: "alpha",
            media: [
              { type: "image", mimeType: "image/png", data: PNG },
              { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
            ],
          },
          { id: "turn-1.0.1", name: "fs__read_file", error: "no such file" },
        ],
      },
      { role: "user", text: "and now?" },
    ];
    await collect(claude.stream(ask(history)));
    expect((await requests(url, key))[0]?.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "turn-1_0_0", name: "fs__read_file", input: { path: "a" } },
          { type: "tool_use", id: "call_abc", name: "fs__read_file", input: { path: "b" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "turn-1_0_0",
            content: [
              { type: "text", text: "alpha" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
              { type: "text", text: "Not sent: audio 1 (audio/wav): Anthropic models take no audio." },
            ],
          },
          { type: "tool_result", tool_use_id: "call_abc", content: [{ type: "text", text: '{"error":"no such file"}' }], is_error: true },
          // The next user message joins the same turn: Anthropic's turns alternate.
          { type: "text", text: "and now?" },
        ],
      },
    ]);
  });

  it("passes the output limit, stop sequences and the stop sequence it stopped at", async () => {
    const { key, claude } = setup("stops");
    await script(url, key, [reply.stream(["one, two"], { stopReason: "three" })]);
    const { events } = await collect(claude.stream(ask(undefined, { maxOutputTokens: 50, stopSequences: ["three"], temperature: 1.5 })));
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop_sequence", stopSequence: "three" });
    expect((await requests(url, key))[0]?.body).toMatchObject({ max_tokens: 50, stop_sequences: ["three"], temperature: 1 });
  });

  it("turns a 429 into a retryable LlmError with Anthropic's message and retry-after", async () => {
    const { key, claude } = setup("429");
    await script(url, key, [reply.error(429, { "retry-after": "3" })]);
    const { error } = await collect(claude.stream(ask()));
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3000, message: "Anthropic API error 429 rate_limit_error: scripted 429" });
  });

  it("fails with an LlmError and no tool_call when the stream is cut inside a tool's input", async () => {
    const { key, claude } = setup("cut");
    // message_start, ping, text start, text delta, tool start, empty delta, then the input's pieces.
    await script(url, key, [reply.cut(7, "Reading. ", reply.call("fs__read_file", { path: "a-long-file-name.txt" }, { pieces: 4 }))]);
    const { events, error } = await collect(claude.stream(ask()));
    expect(events).toEqual([{ type: "text", delta: "Reading. " }]);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toContain("interrupted");
  });

  it("closes the request when the caller cancels mid-stream", async () => {
    const { key, claude } = setup("cancel");
    await script(url, key, [reply.hang("Thinking")]);
    const controller = new AbortController();
    const seen: string[] = [];
    const { error } = await collect(
      (async function* () {
        for await (const event of claude.stream(ask(undefined, { signal: controller.signal }))) {
          if (event.type === "text") seen.push(event.delta);
          controller.abort();
          yield event;
        }
      })(),
    );
    expect(seen).toEqual(["Thinking"]);
    expect((error as Error).name).toBe("AbortError");
    await hangsClosed(url, key);
  });

  it("is a kind of MODEL_PROVIDERS, its models listed from Anthropic's models endpoint", async () => {
    const key = uniqueKey("anthropic-registry");
    await scriptModels(url, key, ["claude-b", "claude-a"]);
    await script(url, key, [reply.text("hello")]);
    const selection = createRegistry({
      MODEL_PROVIDERS: JSON.stringify({ claude: { kind: "anthropic", label: "Claude", baseUrl: url, apiKeyVar: "CLAUDE_KEY", defaultModel: "claude-a" } }),
      CLAUDE_KEY: key,
    });
    if (!("registry" in selection)) throw new Error(selection.missing);
    expect((await selection.registry.list()).options.map((o) => o.model)).toEqual(["claude-a", "claude-b"]);
    const { events } = await collect(selection.registry.build({ provider: "claude", model: "claude-b" }).stream(ask()));
    expect(events[0]).toEqual({ type: "text", delta: "hello" });
    expect((await requests(url, key)).map((r) => [r.path, r.auth])).toEqual([
      ["/v1/models?limit=1000", "x-api-key"],
      ["/v1/messages", "authorization"],
    ]);
  });
});
