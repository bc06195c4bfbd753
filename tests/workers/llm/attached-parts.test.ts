// Attached resources as each provider receives them, against the fake model server
// recording request bodies: text contents as text parts, image and audio blobs as
// inline media in the user's own content (Gemini inlineData, OpenAI image_url /
// input_audio content parts), a binary blob as a note; and the media budget, which
// keeps the newest message's media first.
import { describe, expect, inject, it } from "vitest";
import { GeminiProvider } from "../../../src/llm/gemini";
import { OpenAiProvider } from "../../../src/llm/openai";
import { PromptedProvider } from "../../../src/llm/prompted";
import type { ChatMessage, LlmRequest } from "../../../src/llm/provider";
import { fitUserMedia, promptTurnMessages, resourceParts } from "../../../src/orchestrator/resource-parts";
import { MediaBudget } from "../../../src/orchestrator/tool-results";
import { collect, reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");

const parts = [
  ...resourceParts(
    { server: "docs", uri: "file:///notes.md", name: "notes" },
    [{ uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes\nbuy milk" }],
    1000,
  ),
  ...resourceParts({ server: "cam", uri: "cam://last" }, [{ uri: "cam://last", mimeType: "image/png", blob: "iVBORw0KGgo=" }], 1000),
  ...resourceParts({ server: "mic", uri: "mic://clip" }, [{ uri: "mic://clip", mimeType: "audio/wav", blob: "UklGRg==" }], 1000),
  ...resourceParts({ server: "box", uri: "box://data.bin" }, [{ uri: "box://data.bin", mimeType: "application/octet-stream", blob: "AAECAwQ=" }], 1000),
];
const messages: ChatMessage[] = [{ role: "user", text: "what is in these?", parts }];
const ask = (m: ChatMessage[]): LlmRequest => ({ system: "", messages: m, tools: [] });

const TEXTS = {
  notes: 'Attached resource "notes" (file:///notes.md, from MCP server "docs"):\n# Notes\nbuy milk',
  image: 'Attached resource (cam://last, from MCP server "cam"): image (image/png), attached next.',
  audio: 'Attached resource (mic://clip, from MCP server "mic"): audio (audio/wav), attached next.',
  binary: 'Attached resource (box://data.bin, from MCP server "box"): application/octet-stream, 5 B, not readable as text.',
};

describe("attached resources per provider", () => {
  it("Gemini: the text, then each resource's parts in the same user content, media as inlineData", async () => {
    const key = uniqueKey("attached-gemini");
    await script(url, key, [reply.text("ok")]);
    const { error } = await collect(new GeminiProvider({ apiKey: key, model: "gemini-test", baseUrl: url }).stream(ask(messages)));
    expect(error).toBeUndefined();
    expect((await requests(url, key))[0]?.body.contents).toEqual([
      {
        role: "user",
        parts: [
          { text: "what is in these?" },
          { text: TEXTS.notes },
          { text: TEXTS.image },
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
          { text: TEXTS.audio },
          { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } },
          { text: TEXTS.binary },
        ],
      },
    ]);
  });

  it("OpenAI-compatible: one user message of content parts, image_url data: URL and input_audio", async () => {
    const key = uniqueKey("attached-openai");
    await script(url, key, [reply.text("ok")]);
    const { error } = await collect(new OpenAiProvider({ baseUrl: `${url}/v1`, model: "vision-model", apiKey: key }).stream(ask(messages)));
    expect(error).toBeUndefined();
    expect((await requests(url, key))[0]?.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "what is in these?" },
          { type: "text", text: TEXTS.notes },
          { type: "text", text: TEXTS.image },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "text", text: TEXTS.audio },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
          { type: "text", text: TEXTS.binary },
        ],
      },
    ]);
  });

  it("prompted mode: one text, media described and never sent", async () => {
    const key = uniqueKey("attached-prompted");
    await script(url, key, [reply.text("ok")]);
    const { error } = await collect(new PromptedProvider(new GeminiProvider({ apiKey: key, model: "gemini-test", baseUrl: url })).stream(ask(messages)));
    expect(error).toBeUndefined();
    const body = (await requests(url, key))[0]?.body;
    expect((body?.contents as unknown[] | undefined)?.at(-1)).toEqual({
      role: "user",
      parts: [
        {
          text: [
            "what is in these?",
            TEXTS.notes,
            TEXTS.image,
            "[image (image/png) cannot be shown: this model is given text only]",
            TEXTS.audio,
            "[audio (audio/wav) cannot be shown: this model is given text only]",
            TEXTS.binary,
          ].join("\n\n"),
        },
      ],
    });
    expect(JSON.stringify(body)).not.toMatch(/inlineData|iVBORw0KGgo=/);
  });
});

describe("the media budget for attachments", () => {
  it("gives the newest message's media the budget first; what does not fit becomes a note", () => {
    const image = (data: string): ChatMessage => ({ role: "user", text: "look", parts: [{ type: "image", mimeType: "image/png", data }] });
    const fitted = fitUserMedia([image("A".repeat(30)), { role: "assistant", text: "seen" }, image("B".repeat(20))], new MediaBudget(40, 25));
    expect(fitted).toEqual([
      { role: "user", text: "look", parts: [{ type: "text", text: "[image/png image left out: 30 B of base64, over the 25 B one media part may have]" }] },
      { role: "assistant", text: "seen" },
      { role: "user", text: "look", parts: [{ type: "image", mimeType: "image/png", data: "B".repeat(20) }] },
    ]);
    const tight = fitUserMedia([image("A".repeat(20)), image("B".repeat(20))], new MediaBudget(30, 25));
    expect(tight[0]).toEqual({
      role: "user",
      text: "look",
      parts: [{ type: "text", text: "[image/png image left out: 20 B of base64, more than the 10 B left of this turn's 30 B media budget]" }],
    });
  });
});

describe("a prompt's messages", () => {
  it("joins consecutive messages of a role; images and audio become contents under their own uri, embedded resources keep theirs, links become text", () => {
    const mapped = promptTurnMessages(
      {
        messages: [
          { role: "user", content: { type: "text", text: "Look at this:" } },
          { role: "user", content: { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" } },
          { role: "user", content: { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "alpha" } } },
          { role: "assistant", content: { type: "text", text: "I see it." } },
          { role: "user", content: { type: "resource_link", uri: "file:///b.txt", name: "b" } },
          { role: "user", content: { type: "audio", mimeType: "audio/wav", data: "UklGRg==" } },
        ],
      },
      (i) => `prompt://p/${i}`,
    );
    expect(mapped).toEqual([
      {
        role: "user",
        text: "Look at this:",
        attached: [
          { uri: "prompt://p/1", name: "image from the prompt", contents: [{ uri: "prompt://p/1", mimeType: "image/png", blob: "iVBORw0KGgo=" }] },
          { uri: "file:///a.txt", contents: [{ uri: "file:///a.txt", mimeType: "text/plain", text: "alpha" }] },
        ],
      },
      { role: "assistant", text: "I see it.", attached: [] },
      {
        role: "user",
        text: 'Resource link "b": file:///b.txt',
        attached: [{ uri: "prompt://p/5", name: "audio from the prompt", contents: [{ uri: "prompt://p/5", mimeType: "audio/wav", blob: "UklGRg==" }] }],
      },
    ]);
  });
});
