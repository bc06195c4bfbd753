// The fake model server itself, for the paths the providers do not use but other
// tests may: non-streamed generateContent and chat completions, key isolation.
import { GoogleGenAI } from "@google/genai";
import { describe, expect, inject, it } from "vitest";
import { reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");

describe("fake LLM server", () => {
  it("answers a non-streamed generateContent with every scripted part in one candidate", async () => {
    const key = uniqueKey("unary");
    await script(url, key, [reply.text("Hel", "lo", reply.call("fs__list_directory", { path: "." }, { id: "c1" }))]);
    const client = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } });
    const response = await client.models.generateContent({ model: "m", contents: "hi" });
    expect(response.candidates?.[0]?.content?.parts?.map((p) => p.text ?? "").join("")).toBe("Hello");
    expect(response.functionCalls).toEqual([{ name: "fs__list_directory", args: { path: "." }, id: "c1" }]);
    expect((await requests(url, key))[0]?.path).toBe("/v1beta/models/m:generateContent");
  });

  it("answers a non-streamed chat completion, keeping each key's script apart", async () => {
    const [a, b] = [uniqueKey("key-a"), uniqueKey("key-b")];
    await script(url, a, [reply.text("for a")]);
    await script(url, b, [reply.text("for b", reply.call("t", { x: 1 }, { id: "call_b" }))]);
    const complete = async (key: string) => {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      });
      return (await response.json()) as { choices: { message: unknown; finish_reason: string }[] };
    };
    const fromB = await complete(b);
    const fromA = await complete(a);
    expect(fromA.choices[0]).toEqual({ index: 0, message: { role: "assistant", content: "for a" }, finish_reason: "stop" });
    expect(fromB.choices[0]?.message).toEqual({
      role: "assistant",
      content: "for b",
      tool_calls: [{ id: "call_b", type: "function", function: { name: "t", arguments: '{"x":1}' } }],
    });
    expect(fromB.choices[0]?.finish_reason).toBe("tool_calls");
  });
});
