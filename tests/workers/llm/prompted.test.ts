// PromptedProvider (fenced ```tool blocks) wrapping the real GeminiProvider,
// called without native tools, against the fake Gemini server.
import { describe, expect, inject, it } from "vitest";
import { GeminiProvider } from "../../../src/llm/gemini";
import { PromptedProvider } from "../../../src/llm/prompted";
import { LlmError, type ChatMessage, type LlmRequest, type ToolDeclaration } from "../../../src/llm/provider";
import { collect, reply, requests, script, uniqueKey, type RecordedRequest } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");
const listTool: ToolDeclaration = {
  name: "fs__list_directory",
  description: "List the entries of a directory",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function setup(label: string): { key: string; prompted: PromptedProvider } {
  const key = uniqueKey(label);
  return { key, prompted: new PromptedProvider(new GeminiProvider({ apiKey: key, model: "plain-model", baseUrl: url })) };
}

const ask = (messages: ChatMessage[] = [{ role: "user", text: "what is here?" }], temperature = 0.7): LlmRequest => ({
  system: "You help with files.",
  messages,
  tools: [listTool],
  temperature,
});

const temperatureOf = (r: RecordedRequest | undefined) => (r?.body.generationConfig as { temperature?: number } | undefined)?.temperature;
const lastUserText = (r: RecordedRequest | undefined): string => {
  const contents = (r?.body.contents ?? []) as { role: string; parts: { text?: string }[] }[];
  return contents.filter((c) => c.role === "user").at(-1)?.parts[0]?.text ?? "";
};
const block = (json: string) => `\`\`\`tool\n${json}\n\`\`\``;

describe("PromptedProvider", () => {
  it("assembles a block whose fence and JSON are split across chunks, streaming the text around it", async () => {
    const { key, prompted } = setup("split");
    await script(url, key, [
      reply.text("I'll check.\n``", "`to", 'ol\n{"tool": "fs__list_', 'directory", "arguments": {"path"', ': "."}}\n``', "`\nDone soon."),
    ]);
    const { events, error } = await collect(prompted.stream(ask()));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text", delta: "I'll check.\n" },
      { type: "text", delta: "\nDone soon." },
      { type: "tool_call", call: { id: "call_1", name: "fs__list_directory", arguments: { path: "." } } },
      { type: "usage", inputTokens: 12, outputTokens: 5 },
      { type: "done", finishReason: "STOP" },
    ]);
    const [request] = await requests(url, key);
    // No native tools: they are described in the system prompt instead.
    expect(request?.body.tools).toBeUndefined();
    const system = JSON.stringify(request?.body.systemInstruction);
    expect(system).toContain("You help with files.");
    expect(system).toContain("### fs__list_directory");
    expect(system).toContain('{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}'.replace(/"/g, '\\"'));
    expect(system).toContain("```tool");
    expect(prompted.stats()).toEqual({ requests: 1, firstAttemptSuccesses: 1 });
  });

  it("repairs a malformed block: retries with the errors, the schema and a lower temperature", async () => {
    const { key, prompted } = setup("malformed");
    await script(url, key, [
      reply.text(block('{"tool": "fs__list_directory", "arguments": {"path": "."}')),
      reply.text("Listing.\n", block('{"tool": "fs__list_directory", "arguments": {"path": "."}}')),
    ]);
    const { events, error } = await collect(prompted.stream(ask()));
    expect(error).toBeUndefined();
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", call: { id: "call_1", name: "fs__list_directory", arguments: { path: "." } } },
    ]);
    // Usage of both attempts is counted.
    expect(events.find((e) => e.type === "usage")).toEqual({ type: "usage", inputTokens: 24, outputTokens: 10 });
    const sent = await requests(url, key);
    expect(sent.map(temperatureOf)).toEqual([0.7, 0.6]);
    const repair = lastUserText(sent[1]);
    expect(repair).toContain("block 1 is not valid JSON");
    expect(repair).toContain('"tool": "<name>"');
    expect(repair).toContain('Arguments (JSON Schema): {"type":"object"');
    // The model sees its own broken answer before the correction request.
    const contents = sent[1]?.body.contents as { role: string; parts: { text?: string }[] }[];
    expect(contents.map((c) => c.role)).toEqual(["user", "model", "user"]);
    expect(contents[1]?.parts[0]?.text).toContain('{"tool": "fs__list_directory", "arguments": {"path": "."}');
    expect(prompted.stats()).toEqual({ requests: 1, firstAttemptSuccesses: 0 });
  });

  it("retries when the model names a tool that does not exist", async () => {
    const { key, prompted } = setup("unknown");
    await script(url, key, [
      reply.text(block('{"tool": "fs__delete_everything", "arguments": {}}')),
      reply.text(block('{"tool": "fs__list_directory", "arguments": {"path": "/"}}')),
    ]);
    const { events } = await collect(prompted.stream(ask()));
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.type === "tool_call" && e.call.name)).toEqual(["fs__list_directory"]);
    const sent = await requests(url, key);
    expect(lastUserText(sent[1])).toContain('block 1 names an unknown tool "fs__delete_everything" (available: fs__list_directory)');
  });

  it("gives up after maxAttempts with an LlmError saying what was wrong", async () => {
    const { key, prompted } = setup("giveup");
    const bad = reply.text(block('{"tool": "fs__list_directory", "arguments": "."}'));
    await script(url, key, [bad, bad, bad]);
    const { error } = await collect(prompted.stream(ask(undefined, 0.25)));
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toBe('The model did not write a usable tool call in 3 attempts: block 1: arguments: "arguments" must be a JSON object');
    expect((await requests(url, key)).map(temperatureOf)).toEqual([0.25, 0.15, 0.05]);
  });

  it("shows the inner model calls as blocks and results as plain text, and counts first-attempt successes", async () => {
    const { key, prompted } = setup("history");
    await script(url, key, [reply.text("There are two files."), reply.text("Bye.")]);
    const history: ChatMessage[] = [
      { role: "user", text: "what is here?" },
      { role: "assistant", text: "Looking.", toolCalls: [{ id: "call_1", name: "fs__list_directory", arguments: { path: "." } }] },
      { role: "tool", results: [{ id: "call_1", name: "fs__list_directory", result: ["a", "b"] }] },
    ];
    await collect(prompted.stream(ask(history)));
    await collect(prompted.stream(ask([...history, { role: "assistant", text: "There are two files." }, { role: "user", text: "bye" }])));
    const contents = (await requests(url, key))[0]?.body.contents;
    expect(contents).toEqual([
      { role: "user", parts: [{ text: "what is here?" }] },
      { role: "model", parts: [{ text: 'Looking.\n\n```tool\n{"tool":"fs__list_directory","arguments":{"path":"."}}\n```' }] },
      { role: "user", parts: [{ text: 'Result of fs__list_directory (call_1): ["a","b"]' }] },
    ]);
    expect(prompted.stats()).toEqual({ requests: 2, firstAttemptSuccesses: 2 });
  });
});
