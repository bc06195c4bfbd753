// Tool-result media as each provider sends them, against the fake model server
// recording the request bodies: OpenAI-compatible endpoints get a user message of
// image_url / input_audio parts after the tool messages, Gemini a user content of
// inlineData parts after the function responses, prompted mode a description only.
// A type the provider cannot take is named in the text, never sent.
import { describe, expect, inject, it } from "vitest";
import { GeminiProvider } from "../../../src/llm/gemini";
import { OpenAiProvider } from "../../../src/llm/openai";
import { PromptedProvider } from "../../../src/llm/prompted";
import type { ChatMessage, LlmRequest, MediaPart } from "../../../src/llm/provider";
import { collect, reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");

const png: MediaPart = { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" };
const svg: MediaPart = { type: "image", mimeType: "image/svg+xml", data: "PHN2Zz4=" };
const wav: MediaPart = { type: "audio", mimeType: "audio/wav", data: "UklGRg==" };
const mpeg: MediaPart = { type: "audio", mimeType: "audio/mpeg", data: "SUQz" };
const webm: MediaPart = { type: "audio", mimeType: "audio/webm", data: "GkXf" };

/** One step of two calls: a snapshot with an image and audio, and a recorder whose error came with a clip. */
const history: ChatMessage[] = [
  { role: "user", text: "look and listen" },
  {
    role: "assistant",
    text: "",
    toolCalls: [
      { id: "c1", name: "cam__snap", arguments: {} },
      { id: "c2", name: "mic__record", arguments: {} },
    ],
  },
  {
    role: "tool",
    results: [
      {
        id: "c1",
        name: "cam__snap",
        result: "snap\n[image 1: image/png, 8 B]\n[image 2: image/svg+xml, 5 B]\n[audio 1: audio/wav, 4 B]",
        media: [png, svg, wav],
      },
      { id: "c2", name: "mic__record", error: "clipped\n[audio 1: audio/mpeg, 3 B]\n[audio 2: audio/webm, 3 B]", media: [mpeg, webm] },
    ],
  },
];

const ask = (messages: ChatMessage[]): LlmRequest => ({ system: "", messages, tools: [] });

describe("tool-result media per provider", () => {
  it("OpenAI-compatible: text-only tool messages, then one user message with image_url data: URLs and input_audio", async () => {
    const key = uniqueKey("media-openai");
    await script(url, key, [reply.text("I see a logo.")]);
    const openai = new OpenAiProvider({ baseUrl: `${url}/v1`, model: "vision-model", apiKey: key });
    const { error } = await collect(openai.stream(ask(history)));
    expect(error).toBeUndefined();
    expect((await requests(url, key))[0]?.body.messages).toEqual([
      { role: "user", content: "look and listen" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "cam__snap", arguments: "{}" } },
          { id: "c2", type: "function", function: { name: "mic__record", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "snap\n[image 1: image/png, 8 B]\n[image 2: image/svg+xml, 5 B]\n[audio 1: audio/wav, 4 B]" },
      { role: "tool", tool_call_id: "c2", content: JSON.stringify({ error: "clipped\n[audio 1: audio/mpeg, 3 B]\n[audio 2: audio/webm, 3 B]" }) },
      {
        role: "user",
        content: [
          {
            type: "text",
            text: "Media from cam__snap (call c1): image 1 (image/png), audio 1 (audio/wav), attached in this order. Not sent: image 2 (image/svg+xml): the endpoint takes PNG, JPEG, WebP or GIF images.",
          },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
          {
            type: "text",
            text: "Media from mic__record (call c2): audio 1 (audio/mpeg), attached in this order. Not sent: audio 2 (audio/webm): the endpoint takes WAV or MP3 audio.",
          },
          { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
        ],
      },
    ]);
  });

  it("Gemini: function responses, then one user content with inlineData in Gemini's MIME names", async () => {
    const key = uniqueKey("media-gemini");
    await script(url, key, [reply.text("I see a logo.")]);
    const gemini = new GeminiProvider({ apiKey: key, model: "gemini-test", baseUrl: url });
    const { error } = await collect(gemini.stream(ask(history)));
    expect(error).toBeUndefined();
    const contents = (await requests(url, key))[0]?.body.contents as unknown[];
    expect(contents.slice(2)).toEqual([
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              name: "cam__snap",
              response: { result: "snap\n[image 1: image/png, 8 B]\n[image 2: image/svg+xml, 5 B]\n[audio 1: audio/wav, 4 B]" },
            },
          },
          { functionResponse: { name: "mic__record", response: { error: "clipped\n[audio 1: audio/mpeg, 3 B]\n[audio 2: audio/webm, 3 B]" } } },
        ],
      },
      {
        role: "user",
        parts: [
          {
            text: "Media from cam__snap (call c1): image 1 (image/png), audio 1 (audio/wav), attached in this order. Not sent: image 2 (image/svg+xml): Gemini takes PNG, JPEG, WebP, HEIC or HEIF images.",
          },
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
          { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } },
          {
            text: "Media from mic__record (call c2): audio 1 (audio/mpeg), attached in this order. Not sent: audio 2 (audio/webm): Gemini takes WAV, MP3, AIFF, AAC, OGG or FLAC audio.",
          },
          { inlineData: { mimeType: "audio/mp3", data: "SUQz" } },
        ],
      },
    ]);
  });

  it("prompted mode: the media are described in the result text, no binary is sent", async () => {
    const key = uniqueKey("media-prompted");
    await script(url, key, [reply.text("I cannot see it.")]);
    const prompted = new PromptedProvider(new GeminiProvider({ apiKey: key, model: "gemini-test", baseUrl: url }));
    const { error } = await collect(prompted.stream(ask(history)));
    expect(error).toBeUndefined();
    const body = (await requests(url, key))[0]?.body;
    expect((body?.contents as unknown[] | undefined)?.at(-1)).toEqual({
      role: "user",
      parts: [
        {
          text: [
            `Result of cam__snap (c1): ${JSON.stringify("snap\n[image 1: image/png, 8 B]\n[image 2: image/svg+xml, 5 B]\n[audio 1: audio/wav, 4 B]")}`,
            "[image 1 (image/png), image 2 (image/svg+xml), audio 1 (audio/wav) of this result cannot be shown: this model is given text only]",
            "",
            "Result of mic__record (c2): error: clipped\n[audio 1: audio/mpeg, 3 B]\n[audio 2: audio/webm, 3 B]",
            "[audio 1 (audio/mpeg), audio 2 (audio/webm) of this result cannot be shown: this model is given text only]",
          ].join("\n"),
        },
      ],
    });
    expect(JSON.stringify(body)).not.toMatch(/inlineData|iVBORw0KGgo=|UklGRg==/);
  });
});
