// createProvider: Worker env bindings → a retrying provider, or a sentence for
// the user naming the variable to set and where. Keys never reach a message.
import { describe, expect, inject, it } from "vitest";
import { createProvider } from "../../../src/llm/select";
import { collect, reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");

describe("createProvider", () => {
  it("says to set GEMINI_API_KEY, and where, when no key is configured", () => {
    expect(createProvider({})).toEqual({
      missing:
        "No model is configured: set GEMINI_API_KEY in .dev.vars for `wrangler dev`, or with `wrangler secret put GEMINI_API_KEY` when deployed; or use any OpenAI-compatible endpoint with LLM_PROVIDER=openai, OPENAI_BASE_URL and OPENAI_MODEL; or declare several providers in MODEL_PROVIDERS. Meanwhile the Tool console calls tools without a model.",
      fix: { variable: "GEMINI_API_KEY", secret: true },
    });
    // A blank line in .dev.vars is no key either.
    expect(createProvider({ GEMINI_API_KEY: "  " })).toHaveProperty("missing");
  });

  it("builds a Gemini provider with the default model that retries a 429", async () => {
    const key = uniqueKey("select-gemini");
    await script(url, key, [reply.error(429, { "retry-after": "2" }), reply.text("hello")]);
    const waits: number[] = [];
    const selection = createProvider({ GEMINI_API_KEY: key, GEMINI_BASE_URL: url, CHAT_SESSION: {} }, { retry: { sleep: async (ms) => void waits.push(ms) } });
    if (!("provider" in selection)) throw new Error(selection.missing);
    expect(selection.provider).toMatchObject({ name: "gemini", model: "gemini-2.5-flash" });
    const { events } = await collect(selection.provider.stream({ system: "", messages: [{ role: "user", text: "hi" }], tools: [] }));
    expect(events[0]).toEqual({ type: "text", delta: "hello" });
    expect(waits).toEqual([2000]);
    expect((await requests(url, key)).map((r) => r.path)).toEqual([
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    ]);
  });

  it("builds an OpenAI-compatible provider in prompted tool mode", async () => {
    const key = uniqueKey("select-openai");
    await script(url, key, [reply.text("```tool\n", '{"tool": "t", "arguments": {}}\n```')]);
    const selection = createProvider({
      LLM_PROVIDER: "OpenAI",
      TOOL_MODE: "prompted",
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: key,
      OPENAI_MODEL: "llama3",
    });
    if (!("provider" in selection)) throw new Error(selection.missing);
    // Wrapped so the key never leaves in an error (registry.ts' withoutSecret): the mode shows in its name and in what it sends.
    expect(selection.provider).toMatchObject({ name: "prompted", model: "llama3" });
    const { events } = await collect(
      selection.provider.stream({
        system: "",
        messages: [{ role: "user", text: "go" }],
        tools: [{ name: "t", description: "", parameters: { type: "object" } }],
      }),
    );
    expect(events.filter((e) => e.type === "tool_call")).toEqual([{ type: "tool_call", call: { id: "call_1", name: "t", arguments: {} } }]);
    const [request] = await requests(url, key);
    expect(request?.body).toMatchObject({ model: "llama3" });
    expect(request?.body.tools).toBeUndefined();
  });

  it("names the OpenAI variables that are missing", () => {
    expect(createProvider({ LLM_PROVIDER: "openai" })).toEqual({
      missing:
        'No model is configured: LLM_PROVIDER is "openai" but OPENAI_MODEL is not set; set it to the model name your endpoint serves in .dev.vars for `wrangler dev`, or under [vars] in wrangler.toml when deployed.',
      fix: { variable: "OPENAI_MODEL", secret: false },
    });
    expect(createProvider({ LLM_PROVIDER: "openai", OPENAI_MODEL: "gpt-4o-mini" })).toMatchObject({
      missing: expect.stringContaining("wrangler secret put OPENAI_API_KEY"),
      fix: { variable: "OPENAI_API_KEY", secret: true },
    });
    expect(createProvider({ LLM_PROVIDER: "openai", OPENAI_MODEL: "llama3", OPENAI_BASE_URL: "http://localhost:11434/v1" })).toHaveProperty("provider");
  });

  it("rejects unknown settings by name without echoing values that may hold secrets", () => {
    expect(createProvider({ LLM_PROVIDER: "claude", GEMINI_API_KEY: "k" })).toEqual({
      missing:
        'No model is available: LLM_PROVIDER must be "gemini" or "openai". Fix it in .dev.vars for `wrangler dev`, or under [vars] in wrangler.toml when deployed.',
      fix: { variable: "LLM_PROVIDER", secret: false },
    });
    const selection = createProvider({ GEMINI_API_KEY: "sk-secret-123", GEMINI_BASE_URL: "ftp://proxy?key=sk-secret-123" });
    expect(selection).toMatchObject({ missing: expect.stringContaining("GEMINI_BASE_URL must be an http(s) URL") });
    expect(JSON.stringify(selection)).not.toContain("sk-secret-123");
  });
});
