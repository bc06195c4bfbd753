// Files from the user's computer as each provider receives them, against the fake model
// server recording request bodies: an image and a PDF natively (Gemini inline data,
// OpenAI-compatible image_url and file parts, Anthropic image and document blocks), a
// text file as text, and a clear note where a model cannot take a kind (prompted mode
// reads text only; Gemini takes no GIF) rather than a silent drop.
import { describe, expect, inject, it } from "vitest";
import { AnthropicProvider } from "../../../src/llm/anthropic";
import { GeminiProvider } from "../../../src/llm/gemini";
import { OpenAiProvider } from "../../../src/llm/openai";
import { PromptedProvider } from "../../../src/llm/prompted";
import type { ChatMessage, LlmRequest } from "../../../src/llm/provider";
import { fileParts, toBase64 } from "../../../src/orchestrator/file-parts";
import { collect, reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");
const bytes = (text: string) => new TextEncoder().encode(text);
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
const PDF = bytes("%PDF-1.4 fake");
const png64 = toBase64(PNG);
const pdf64 = toBase64(PDF);

const parts = [
  ...fileParts({ name: "shot.png", mimeType: "image/png", kind: "image", size: PNG.length }, PNG, 1000),
  ...fileParts({ name: "paper.pdf", mimeType: "application/pdf", kind: "pdf", size: PDF.length }, PDF, 1000),
  ...fileParts({ name: "data.csv", mimeType: "text/csv", kind: "text", size: 8 }, bytes("a,b\n1,2\n"), 1000),
];
const ask = (m: ChatMessage[]): LlmRequest => ({ system: "", messages: m, tools: [] });
const messages: ChatMessage[] = [{ role: "user", text: "read these", parts }];
const TEXTS = {
  image: 'Attached file "shot.png" (image/png, 9 B): image, attached next.',
  pdf: 'Attached file "paper.pdf" (application/pdf, 13 B): document, attached next.',
  csv: 'Attached file "data.csv" (text/csv, 8 B):\na,b\n1,2\n',
};

describe("attached files per provider", () => {
  it("Gemini: image and PDF as inlineData, the text file as text", async () => {
    const key = uniqueKey("files-gemini");
    await script(url, key, [reply.text("ok")]);
    const { error } = await collect(new GeminiProvider({ apiKey: key, model: "gemini-test", baseUrl: url }).stream(ask(messages)));
    expect(error).toBeUndefined();
    expect((await requests(url, key))[0]?.body.contents).toEqual([
      {
        role: "user",
        parts: [
          { text: "read these" },
          { text: TEXTS.image },
          { inlineData: { mimeType: "image/png", data: png64 } },
          { text: TEXTS.pdf },
          { inlineData: { mimeType: "application/pdf", data: pdf64 } },
          { text: TEXTS.csv },
        ],
      },
    ]);
  });

  it("OpenAI-compatible: an image_url data: URL and a file part carrying the PDF", async () => {
    const key = uniqueKey("files-openai");
    await script(url, key, [reply.text("ok")]);
    const { error } = await collect(new OpenAiProvider({ baseUrl: `${url}/v1`, model: "vision-model", apiKey: key }).stream(ask(messages)));
    expect(error).toBeUndefined();
    expect((await requests(url, key))[0]?.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "read these" },
          { type: "text", text: TEXTS.image },
          { type: "image_url", image_url: { url: `data:image/png;base64,${png64}` } },
          { type: "text", text: TEXTS.pdf },
          { type: "file", file: { filename: "paper.pdf", file_data: `data:application/pdf;base64,${pdf64}` } },
          { type: "text", text: TEXTS.csv },
        ],
      },
    ]);
  });

  it("Anthropic: an image block and a document block", async () => {
    const key = uniqueKey("files-anthropic");
    await script(url, key, [reply.text("ok")]);
    const { error } = await collect(new AnthropicProvider({ apiKey: key, model: "claude-test", baseUrl: url }).stream(ask(messages)));
    expect(error).toBeUndefined();
    expect((await requests(url, key))[0]?.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "read these" },
          { type: "text", text: TEXTS.image },
          { type: "image", source: { type: "base64", media_type: "image/png", data: png64 } },
          { type: "text", text: TEXTS.pdf },
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf64 }, title: "paper.pdf" },
          { type: "text", text: TEXTS.csv },
        ],
      },
    ]);
  });

  it("a model that cannot take a kind is told so in place of it: prompted mode, and a GIF for Gemini", async () => {
    const key = uniqueKey("files-prompted");
    await script(url, key, [reply.text("ok"), reply.text("ok")]);
    const gemini = new GeminiProvider({ apiKey: key, model: "gemini-test", baseUrl: url });
    expect((await collect(new PromptedProvider(gemini).stream(ask(messages)))).error).toBeUndefined();
    const prompted = (await requests(url, key))[0]?.body;
    expect(JSON.stringify(prompted)).toContain("[image (image/png) cannot be shown: this model is given text only]");
    expect(JSON.stringify(prompted)).toContain("[document (application/pdf) cannot be shown: this model is given text only]");
    expect(JSON.stringify(prompted)).not.toContain(pdf64);

    const gif = fileParts({ name: "anim.gif", mimeType: "image/gif", kind: "image", size: 6 }, bytes("GIF89a"), 1000);
    expect((await collect(gemini.stream(ask([{ role: "user", text: "and this", parts: gif }])))).error).toBeUndefined();
    expect((await requests(url, key))[1]?.body.contents).toEqual([
      {
        role: "user",
        parts: [
          { text: "and this" },
          { text: 'Attached file "anim.gif" (image/gif, 6 B): image, attached next.' },
          { text: "[image (image/gif) not sent: Gemini takes PNG, JPEG, WebP, HEIC or HEIF images]" },
        ],
      },
    ]);
  });
});
