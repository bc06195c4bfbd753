// Sampling requests a real server sends (tests/fixtures/sampling-server.mjs, a stdio
// child of the real bridge, reached by McpHost as the Worker reaches it) answered by
// answerSampling with the real Gemini and OpenAI-compatible providers talking to the
// fake model server, which records exactly what each was sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSettings } from "../../src/config/settings";
import { GeminiProvider, toContents } from "../../src/llm/gemini";
import { OpenAiProvider, toOpenAiMessages } from "../../src/llm/openai";
import type { LlmProvider } from "../../src/llm/provider";
import type { McpHost } from "../../src/mcp/host";
import { answerSampling, toChatMessages, type SamplingParams } from "../../src/orchestrator/sampling";
import { chooseSamplingModel } from "../../src/orchestrator/sampling-model";
import { startFakeLlm, type FakeLlm } from "../fixtures/fake-gemini";
import { reply, requests, script, uniqueKey } from "../fixtures/fake-llm-script";
import { bridgedHost } from "../fixtures/host";
import { repoRoot, stdioServer } from "../fixtures/servers";

const samplerBin = `${repoRoot}/tests/fixtures/sampling-server.mjs`;
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";
const LISTED = ["gemini-2.5-flash-lite", "gemini-2.5-pro"];

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm?.stop();
});

interface Sampler {
  host: McpHost;
  summaries: string[];
  used: number[];
  /** Calls the server's `sample` tool: the CreateMessageResult it got, or the error it got as text. */
  sample(params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: string }>;
}

async function sampler(provider: LlmProvider, options: { models?: string[]; approve?: boolean } = {}): Promise<Sampler> {
  const { host, config } = await bridgedHost([stdioServer("sampler", [samplerBin])]);
  const summaries: string[] = [];
  const used: number[] = [];
  host.onServerRequest({
    sampling: ({ params, signal }) =>
      answerSampling(
        params,
        {
          provider,
          models: options.models ?? LISTED,
          maxTokensCap: 1000,
          approve: async (summary) => {
            summaries.push(summary);
            return options.approve ?? true;
          },
          used: (tokens) => void used.push(tokens),
        },
        signal,
      ),
  });
  await host.connect(config);
  return {
    host,
    summaries,
    used,
    sample: async (params) => {
      // Through the bridge on 2026-07-28 a refused request fails the call itself with the host's words (an
      // input_required answer can only be a result); on 2025 the server was answered with an error and said so.
      const result = await host.callTool("sampler.sample", { params }).catch((error: unknown) => ({
        isError: true,
        content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
      }));
      const text = (result.content[0] as { text: string }).text;
      return result.isError ? { error: text } : { result: JSON.parse(text) as Record<string, unknown> };
    },
  };
}

/** A conversation with an image, an earlier answer and an audio clip. */
const conversation = [
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture?" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ],
  },
  { role: "assistant", content: { type: "text", text: "A red dot." } },
  { role: "user", content: { type: "audio", data: WAV, mimeType: "audio/wav" } },
];

describe("sampling through the bridge, to Gemini", () => {
  it("sends the system prompt, maxTokens, temperature, stop sequences and media, on the model a hint picked", async () => {
    const key = uniqueKey("sampling-gemini");
    await script(llm.url, key, [reply.stream(["A dot and a beep."], { usage: { input: 30, output: 6 } })]);
    const s = await sampler(new GeminiProvider({ apiKey: key, baseUrl: llm.url }));
    const { result } = await s.sample({
      messages: conversation,
      systemPrompt: "Be brief.",
      maxTokens: 64,
      temperature: 0.2,
      stopSequences: ["END"],
      includeContext: "thisServer",
      modelPreferences: { hints: [{ name: "claude-3-sonnet" }, { name: "PRO" }], costPriority: 0.9 },
    });
    const [sent] = await requests(llm.url, key);
    expect(sent?.path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    expect(sent?.body).toEqual({
      contents: [
        { role: "user", parts: [{ text: "What is in this picture?" }, { inlineData: { mimeType: "image/png", data: PNG } }] },
        { role: "model", parts: [{ text: "A red dot." }] },
        { role: "user", parts: [{ inlineData: { mimeType: "audio/wav", data: WAV } }] },
      ],
      systemInstruction: { parts: [{ text: "Be brief." }], role: "user" },
      generationConfig: { temperature: 0.2, maxOutputTokens: 64, stopSequences: ["END"] },
    });
    expect(result).toEqual({ role: "assistant", model: "gemini-2.5-pro", content: { type: "text", text: "A dot and a beep." }, stopReason: "endTurn" });
    expect(s.summaries).toEqual([
      'system: Be brief.\nuser: What is in this picture? [image 1 (image/png)]\nassistant: A red dot.\nuser: [audio 1 (audio/wav)]\n— model gemini-2.5-pro (hint "PRO"), at most 64 tokens, temperature 0.2, stops at "END"',
    ]);
    expect(s.used).toEqual([36]);
  });

  it("keeps the configured model when no hint matches and no priority decides, and caps maxTokens", async () => {
    const key = uniqueKey("sampling-gemini-default");
    await script(llm.url, key, [reply.stream(["cut"], { finishReason: "MAX_TOKENS" })]);
    const s = await sampler(new GeminiProvider({ apiKey: key, baseUrl: llm.url }));
    const { result } = await s.sample({
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 50_000,
      modelPreferences: { hints: [{ name: "gpt-4o" }] },
    });
    const [sent] = await requests(llm.url, key);
    expect(sent?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(sent?.body).toEqual({ contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { maxOutputTokens: 1000 } });
    expect(result).toMatchObject({ model: "gemini-2.5-flash", stopReason: "maxTokens" });
  });
});

describe("sampling through the bridge, to an OpenAI-compatible endpoint", () => {
  it("sends a system message, max_tokens, stop and image/audio parts, on the model intelligencePriority picked", async () => {
    const key = uniqueKey("sampling-openai");
    await script(llm.url, key, [reply.stream(["A dot"], { finishReason: "length" })]);
    const s = await sampler(new OpenAiProvider({ baseUrl: `${llm.url}/v1`, apiKey: key, model: "small-model" }), { models: ["small-model", "big-model"] });
    const { result } = await s.sample({
      messages: conversation,
      systemPrompt: "Be brief.",
      maxTokens: 5,
      temperature: 0.2,
      stopSequences: ["END", "\n\n"],
      modelPreferences: { hints: [{ name: "claude" }], intelligencePriority: 0.8, speedPriority: 0.3 },
    });
    const [sent] = await requests(llm.url, key);
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.body).toEqual({
      model: "big-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          ],
        },
        { role: "assistant", content: "A red dot." },
        { role: "user", content: [{ type: "input_audio", input_audio: { data: WAV, format: "wav" } }] },
      ],
      temperature: 0.2,
      max_tokens: 5,
      stop: ["END", "\n\n"],
    });
    expect(result).toEqual({ role: "assistant", model: "big-model", content: { type: "text", text: "A dot" }, stopReason: "maxTokens" });
  });

  it("reports stopSequence when the endpoint names the stop string it matched (vLLM's stop_reason)", async () => {
    const key = uniqueKey("sampling-openai-stop");
    await script(llm.url, key, [reply.stream(["one, two"], { stopReason: "three" })]);
    const s = await sampler(new OpenAiProvider({ baseUrl: `${llm.url}/v1`, apiKey: key, model: "small-model" }), { models: [] });
    const { result } = await s.sample({
      messages: [{ role: "user", content: { type: "text", text: "count" } }],
      maxTokens: 20,
      stopSequences: ["three"],
      modelPreferences: { costPriority: 1 },
    });
    expect(result).toEqual({ role: "assistant", model: "small-model", content: { type: "text", text: "one, two" }, stopReason: "stopSequence" });
  });

  it("sends max_completion_tokens to OpenAI itself, which refuses max_tokens for its reasoning models", async () => {
    const key = uniqueKey("sampling-openai-com");
    await script(llm.url, key, [reply.text("ok")]);
    // api.openai.com as the configured base URL; the request itself is routed to the fake.
    const toFake: typeof fetch = (input, init) => fetch(String(input).replace("https://api.openai.com", llm.url), init);
    const s = await sampler(new OpenAiProvider({ baseUrl: "https://api.openai.com/v1", apiKey: key, model: "gpt-5-mini", fetch: toFake }), { models: [] });
    await s.sample({ messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 7 });
    const [sent] = await requests(llm.url, key);
    expect(sent?.body).toMatchObject({ model: "gpt-5-mini", max_completion_tokens: 7 });
    expect(sent?.body).not.toHaveProperty("max_tokens");
  });
});

describe("sampling requests this host refuses", () => {
  it("tells the server what was wrong, asks no model and no user", async () => {
    const key = uniqueKey("sampling-refused");
    const s = await sampler(new GeminiProvider({ apiKey: key, baseUrl: llm.url }));
    const { error } = await s.sample({
      messages: [{ role: "user", content: { type: "text", text: "x" } }],
      maxTokens: 5,
      stopSequences: ["a", "b", "c", "d", "e"],
    });
    expect(error).toContain("at most 4 stopSequences are supported (got 5)");
    expect(s.summaries).toEqual([]);
    expect(await requests(llm.url, key)).toEqual([]);
  });

  it("refuses tools in a sampling request (this host does no tool use for servers)", async () => {
    const key = uniqueKey("sampling-tools");
    const provider = new GeminiProvider({ apiKey: key, baseUrl: llm.url });
    const params = {
      messages: [{ role: "user", content: { type: "text", text: "x" } }],
      maxTokens: 5,
      tools: [{ name: "t", inputSchema: { type: "object" } }],
    } as SamplingParams;
    const refused = await answerSampling(params, { provider, models: [], maxTokensCap: 10, approve: async () => true }, new AbortController().signal).catch(
      (e: unknown) => String(e),
    );
    expect(refused).toContain("sampling with tools is not supported by this host");
    expect(await requests(llm.url, key)).toEqual([]);
  });

  it("answers the server with an error when the user declines", async () => {
    const key = uniqueKey("sampling-declined");
    const s = await sampler(new GeminiProvider({ apiKey: key, baseUrl: llm.url }), { approve: false });
    const { error } = await s.sample({ messages: [{ role: "user", content: { type: "text", text: "x" } }], maxTokens: 5 });
    expect(error).toContain("the user declined the sampling request");
    expect(await requests(llm.url, key)).toEqual([]);
  });
});

describe("the model preference rule", () => {
  const listed = ["fast-mini", "mid", "deep-pro"];
  it.each([
    ["an exact hint", { hints: [{ name: "mid" }] }, "mid"],
    ["the first hint that matches", { hints: [{ name: "opus" }, { name: "mini" }, { name: "pro" }] }, "fast-mini"],
    ["the configured model named by a hint", { hints: [{ name: "configured" }], intelligencePriority: 1 }, "configured"],
    ["cost over intelligence: the first listed", { costPriority: 0.7, intelligencePriority: 0.2 }, "fast-mini"],
    ["speed over intelligence: the first listed", { speedPriority: 0.7 }, "fast-mini"],
    ["intelligence over cost and speed: the last listed", { costPriority: 0.2, speedPriority: 0.3, intelligencePriority: 0.5 }, "deep-pro"],
    ["a tie: the configured model", { costPriority: 0.5, intelligencePriority: 0.5 }, "configured"],
    ["no preferences: the configured model", undefined, "configured"],
  ])("%s", (_label, preferences, expected) => {
    expect(chooseSamplingModel(preferences, listed, "configured").model).toBe(expected);
  });

  it("gives servers only the configured model when SAMPLING_MODELS is empty", () => {
    expect(chooseSamplingModel({ hints: [{ name: "pro" }], intelligencePriority: 1 }, [], "configured").model).toBe("configured");
  });
});

describe("the sampling settings", () => {
  it("reads SAMPLING_MODELS as a trimmed comma list and SAMPLING_MAX_TOKENS as a bound", () => {
    expect(readSettings({}).settings).toMatchObject({ SAMPLING_MODELS: [], SAMPLING_MAX_TOKENS: 4096 });
    const { settings, problems } = readSettings({ SAMPLING_MODELS: " gemini-2.5-flash-lite, openai/gpt-4o ,llama3.1:8b,", SAMPLING_MAX_TOKENS: "512" });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({ SAMPLING_MODELS: ["gemini-2.5-flash-lite", "openai/gpt-4o", "llama3.1:8b"], SAMPLING_MAX_TOKENS: 512 });
  });

  it("names a bad value and keeps the default", () => {
    const { settings, problems } = readSettings({ SAMPLING_MODELS: "good, bad model!", SAMPLING_MAX_TOKENS: "0" });
    expect(problems).toEqual([
      "SAMPLING_MODELS is invalid (a comma list of model names); using the default",
      "SAMPLING_MAX_TOKENS is invalid (Too small: expected number to be >=1); using the default",
    ]);
    expect(settings).toMatchObject({ SAMPLING_MODELS: [], SAMPLING_MAX_TOKENS: 4096 });
  });
});

describe("sampling content each provider cannot take", () => {
  const messages = toChatMessages([
    {
      role: "user",
      content: [
        { type: "text", text: "Look:" },
        { type: "image", data: "PHN2Zz4=", mimeType: "image/svg+xml" },
        { type: "image", data: PNG, mimeType: "image/png" },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Seen." },
        { type: "image", data: PNG, mimeType: "image/png" },
      ],
    },
    { role: "user", content: { type: "audio", data: "x".repeat(3 * 1024 * 1024), mimeType: "audio/wav" } },
  ] as SamplingParams["messages"]);

  it("names a refused type in the text, an assistant's media in its text, and a part over the size limit", () => {
    expect(toContents(messages)).toEqual([
      // A medium the provider cannot take is named in its place, between the parts it came between.
      {
        role: "user",
        parts: [
          { text: "Look:" },
          { text: "[image (image/svg+xml) not sent: Gemini takes PNG, JPEG, WebP, HEIC or HEIF images]" },
          { inlineData: { mimeType: "image/png", data: PNG } },
        ],
      },
      { role: "model", parts: [{ text: "Seen.\n[image 1 (image/png) of this earlier answer: not shown to the model]" }] },
      { role: "user", parts: [{ text: "[audio (audio/wav) left out: 3 MB of base64, over the 2 MB one media part may have]" }] },
    ]);
    expect(toOpenAiMessages("", messages)[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Look:" },
        { type: "text", text: "[image (image/svg+xml) not sent: the endpoint takes PNG, JPEG, WebP or GIF images]" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    });
  });
});
