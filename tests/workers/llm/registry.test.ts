// The deployment's model registry inside workerd: MODEL_PROVIDERS beside today's
// variables, pinned and listed models (read from the fake's models endpoints, cached),
// ALLOWED_MODELS, per-model settings reaching the request, and problems named without
// their values.
import { describe, expect, inject, it } from "vitest";
import { createRegistry } from "../../../src/llm/select";
import { collect, reply, requests, script, scriptModels, uniqueKey } from "../../fixtures/fake-llm-script";

const url = inject("fakeLlmUrl");

function twoProviders(geminiKey: string, openaiKey: string, extra: Record<string, unknown> = {}) {
  return {
    GEMINI_API_KEY: geminiKey,
    GEMINI_BASE_URL: url,
    GEMINI_MODEL: "gemini-test",
    MODEL_PROVIDERS: JSON.stringify({
      local: { kind: "openai", label: "Local", baseUrl: `${url}/v1`, apiKeyVar: "LOCAL_KEY", defaultModel: "fake-small" },
      pinned: { kind: "openai", baseUrl: `${url}/v1`, models: ["p-one", "p-two"] },
    }),
    LOCAL_KEY: openaiKey,
    ...extra,
  };
}

describe("the model registry", () => {
  it("keeps today's provider first and adds MODEL_PROVIDERS' ones, listing models from the endpoint once", async () => {
    const geminiKey = uniqueKey("reg-gemini");
    const openaiKey = uniqueKey("reg-openai");
    await scriptModels(url, openaiKey, ["fake-small", "fake-large", "fake-huge"]);
    const selection = createRegistry(twoProviders(geminiKey, openaiKey));
    if (!("registry" in selection)) throw new Error(selection.missing);
    expect(selection.defaultModel).toEqual({ provider: "gemini", model: "gemini-test" });
    expect(selection.registry.providers.map((p) => [p.id, p.kind, p.label])).toEqual([
      ["gemini", "gemini", "Gemini"],
      ["local", "openai", "Local"],
      ["pinned", "openai", "pinned"],
    ]);
    const first = await selection.registry.list();
    expect(first.problems).toEqual([]);
    expect(first.options.map((o) => `${o.provider}/${o.model}`)).toEqual([
      "gemini/gemini-test",
      "local/fake-huge",
      "local/fake-large",
      "local/fake-small",
      "pinned/p-one",
      "pinned/p-two",
    ]);
    await selection.registry.list();
    expect(await selection.registry.refusal({ provider: "local", model: "fake-huge" })).toBeUndefined();
    // Listed once: the second listing and the check came from the cache.
    expect((await requests(url, openaiKey)).map((r) => [r.path, r.auth])).toEqual([["/v1/models", "authorization"]]);
  });

  it("narrows the deployment's models to ALLOWED_MODELS and refuses others by name", async () => {
    const openaiKey = uniqueKey("reg-allowed");
    const selection = createRegistry(twoProviders(uniqueKey("reg-g"), openaiKey, { ALLOWED_MODELS: "local/fake-s*, pinned/p-two" }));
    if (!("registry" in selection)) throw new Error(selection.missing);
    // Gemini's only model is not allowed: the first allowed default is local's.
    expect(selection.defaultModel).toEqual({ provider: "local", model: "fake-small" });
    expect((await selection.registry.list()).options.map((o) => `${o.provider}/${o.model}`)).toEqual(["local/fake-small", "pinned/p-two"]);
    expect(await selection.registry.refusal({ provider: "pinned", model: "p-one" })).toBe("pinned/p-one is not among the models this deployment allows");
    expect(await selection.registry.refusal({ provider: "nope", model: "x" })).toBe('there is no model provider "nope"');
    expect(await selection.registry.refusal({ provider: "local", model: "fake-smallest" })).toBe('Local offers no model "fake-smallest"');
  });

  it("sends a choice's temperature and output limit, and its prompted tool mode", async () => {
    const openaiKey = uniqueKey("reg-settings");
    const selection = createRegistry(twoProviders(uniqueKey("reg-g"), openaiKey));
    if (!("registry" in selection)) throw new Error(selection.missing);
    await script(url, openaiKey, [reply.text("hi"), reply.text("again")]);
    const ask = { system: "", messages: [{ role: "user" as const, text: "hi" }], tools: [{ name: "t", description: "", parameters: { type: "object" } }] };
    await collect(selection.registry.build({ provider: "local", model: "fake-large", temperature: 0.4, maxOutputTokens: 123 }).stream(ask));
    await collect(selection.registry.build({ provider: "local", model: "fake-large", toolMode: "prompted" }).stream(ask));
    const [native, prompted] = await requests(url, openaiKey);
    expect(native?.body).toMatchObject({ model: "fake-large", temperature: 0.4, max_tokens: 123, tools: [{ function: { name: "t" } }] });
    expect(prompted?.body.tools).toBeUndefined();
    expect(JSON.stringify(prompted?.body.messages)).toContain("```tool");
  });

  it("falls back to the default model when the models endpoint fails, and says so", async () => {
    const selection = createRegistry({
      MODEL_PROVIDERS: JSON.stringify({ down: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", defaultModel: "m1" } }),
    });
    if (!("registry" in selection)) throw new Error(selection.missing);
    const { options, problems } = await selection.registry.list();
    expect(options.map((o) => o.model)).toEqual(["m1"]);
    expect(problems).toEqual([expect.stringMatching(/^down: could not list models: /)]);
  });

  it("names what is wrong with MODEL_PROVIDERS by path, never by value", () => {
    const missing = (env: Record<string, unknown>) => {
      const selection = createRegistry(env);
      return "missing" in selection ? selection.missing : "";
    };
    expect(missing({ MODEL_PROVIDERS: "{nope" })).toMatch(/^No model is available: MODEL_PROVIDERS is invalid \(not valid JSON\)/);
    expect(missing({ MODEL_PROVIDERS: JSON.stringify({ x: { kind: "claude" } }) })).toMatch(/MODEL_PROVIDERS is invalid \(x\.kind: /);
    expect(missing({ MODEL_PROVIDERS: JSON.stringify({ x: { kind: "gemini", apiKeyVar: "X_KEY" } }) })).toContain(
      "x.apiKeyVar: X_KEY is not set (set it in .dev.vars for `wrangler dev`, or with `wrangler secret put X_KEY` when deployed)",
    );
    // The page's short notice names the one variable to set first: here the key's, a secret.
    expect(createRegistry({ MODEL_PROVIDERS: JSON.stringify({ x: { kind: "gemini", apiKeyVar: "X_KEY" } }) })).toMatchObject({
      fix: { variable: "X_KEY", secret: true },
    });
    expect(createRegistry({ MODEL_PROVIDERS: "{nope" })).toMatchObject({ fix: { variable: "MODEL_PROVIDERS", secret: false } });
    expect(missing({ MODEL_PROVIDERS: JSON.stringify({ x: { kind: "openai", baseUrl: "http://h/v1" } }) })).toContain(
      'x.models: list the models, or name a "defaultModel"',
    );
    const secret = "sk-very-secret-value";
    const text = missing({ MODEL_PROVIDERS: JSON.stringify({ x: { kind: "openai", baseUrl: `ftp://h?key=${secret}`, models: ["m"] } }) });
    expect(text).toContain("x.baseUrl: must be an http(s) URL");
    expect(text).not.toContain(secret);
    expect(missing({ GEMINI_API_KEY: "k", ALLOWED_MODELS: "no slash" })).toMatch(/ALLOWED_MODELS must be a comma list of provider\/model names/);
  });
});
