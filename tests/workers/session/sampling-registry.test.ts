// Sampling chooses from the session's model registry: the server's hints reach any model
// the session may use (the deployment's, narrowed by ALLOWED_MODELS, and the user's own),
// SAMPLING_MODELS ranks them for the priorities, and the session's model answers otherwise.
// The rule alone, then through answerSampling with real providers against the fake server,
// then end to end: a session on the user's own provider answers server-everything's
// sampling request on that key, outside the deployment's daily budget.
import { env } from "cloudflare:test";
import type { ModelPreferences } from "@modelcontextprotocol/client";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { createRegistry } from "../../../src/llm/select";
import { answerSampling } from "../../../src/orchestrator/sampling";
import { chooseFromRegistry, rankedSamplingModels } from "../../../src/orchestrator/sampling-model";
import { userAccount } from "../../../src/users/account";
import { ownProviderSpecs } from "../../../src/users/user-providers";
import { reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";
import type { ServerMessage } from "../../../src/protocol/messages";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const current = { provider: "gemini", model: "gemini-2.5-flash" };
const offered = [
  current,
  { provider: "gemini", model: "gemini-2.5-pro" },
  { provider: "claude", model: "claude-haiku" },
  { provider: "claude", model: "claude-opus" },
  { provider: "user:mine", model: "llama-mini" },
];

describe("the registry's sampling rule", () => {
  const ranked = rankedSamplingModels(["gemini-2.5-flash-lite", "claude/claude-haiku", "gemini-2.5-pro", "nowhere/x"], offered, current);

  it("reads SAMPLING_MODELS as models of the registry, bare names on the session's provider", () => {
    expect(ranked).toEqual([
      { provider: "gemini", model: "gemini-2.5-flash-lite" },
      { provider: "claude", model: "claude-haiku" },
      { provider: "gemini", model: "gemini-2.5-pro" },
      { provider: "gemini", model: "nowhere/x" },
    ]);
  });

  it.each<[string, ModelPreferences | undefined, string, string]>([
    ["a hint naming another provider's model", { hints: [{ name: "claude-opus" }] }, "claude/claude-opus", 'hint "claude-opus"'],
    ["a hint as provider/model", { hints: [{ name: "user:mine/llama-mini" }] }, "user:mine/llama-mini", 'hint "user:mine/llama-mini"'],
    ["a partial hint: SAMPLING_MODELS first", { hints: [{ name: "haiku" }] }, "claude/claude-haiku", 'hint "haiku"'],
    ["a partial hint: then the session's provider", { hints: [{ name: "pro" }] }, "gemini/gemini-2.5-pro", 'hint "pro"'],
    ["a partial hint on any offered model", { hints: [{ name: "opus" }] }, "claude/claude-opus", 'hint "opus"'],
    ["the first hint that matches", { hints: [{ name: "gpt-5" }, { name: "llama" }] }, "user:mine/llama-mini", 'hint "llama"'],
    ["cost: the first of SAMPLING_MODELS", { costPriority: 0.9 }, "gemini/gemini-2.5-flash-lite", "costPriority 0.9"],
    ["intelligence: the last of SAMPLING_MODELS", { intelligencePriority: 0.9 }, "gemini/nowhere/x", "intelligencePriority 0.9"],
    ["no preferences: the session's model", undefined, "gemini/gemini-2.5-flash", "the session's model"],
  ])("%s", (_label, preferences, expected, reason) => {
    const { ref, reason: why } = chooseFromRegistry(preferences, { current, offered, ranked });
    expect([`${ref.provider}/${ref.model}`, why]).toEqual([expected, reason]);
  });
});

describe("answerSampling with the registry", () => {
  it("asks the model a hint picked, on its own provider, and keeps a user's own key out of the budget", async () => {
    const geminiKey = uniqueKey("sampling-gemini");
    const ownKey = uniqueKey("sampling-own");
    await script(llm, ownKey, [reply.stream(["from my key"], { usage: { input: 4, output: 3 } })]);
    const selection = createRegistry({ GEMINI_API_KEY: geminiKey, GEMINI_BASE_URL: llm });
    if (!("registry" in selection)) throw new Error(selection.missing);
    const registry = selection.registry.withUserProviders(
      ownProviderSpecs([{ id: "mine", kind: "openai", baseUrl: `${llm}/v1`, apiKey: ownKey, models: ["llama-mini"] }]),
    );
    const { options } = await registry.list();
    const budget: number[] = [];
    const summaries: string[] = [];
    const result = await answerSampling(
      { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 20, modelPreferences: { hints: [{ name: "llama" }] } },
      {
        provider: registry.build(current),
        models: [],
        maxTokensCap: 100,
        approve: async (summary) => Boolean(summaries.push(summary)),
        used: (tokens) => void budget.push(tokens),
        refusal: async (tokens) => void budget.push(-tokens),
        choose: async (preferences) => {
          const { ref, reason } = chooseFromRegistry(preferences, { current, offered: options, ranked: [] });
          return {
            label: `${ref.provider}/${ref.model}`,
            model: ref.model,
            reason,
            provider: registry.build(ref),
            budgeted: registry.spec(ref.provider)?.source !== "user",
          };
        },
      },
      new AbortController().signal,
    );
    expect(result).toEqual({ role: "assistant", model: "llama-mini", content: { type: "text", text: "from my key" }, stopReason: "endTurn" });
    expect(summaries[0]).toContain('— model user:mine/llama-mini (hint "llama"), at most 20 tokens');
    expect((await requests(llm, ownKey))[0]?.body).toMatchObject({ model: "llama-mini", max_tokens: 20 });
    expect(await requests(llm, geminiKey)).toEqual([]);
    // Neither held nor counted: the user's own key pays.
    expect(budget).toEqual([]);
  });
});

describe("a session's sampling on the user's own provider", () => {
  it("answers a server's sampling request with the session's own-key model, outside the daily budget", async () => {
    const key = uniqueKey("sampling-session");
    const id = `smp${crypto.randomUUID().slice(0, 6)}`;
    const added = await workerFetch(
      "/api/my-providers",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id, kind: "openai", baseUrl: `${llm}/v1`, apiKey: key, models: ["own-m"] }),
      },
      "carol",
    );
    expect(added.status).toBe(201);
    const me = (await (await workerFetch("/api/me", {}, "carol")).json()) as { user: { id: string } };
    const account = userAccount(env as unknown as Env, me.user.id);
    const socket = await openSession(crypto.randomUUID(), "carol");
    let from = socket.received.length;
    socket.send({ type: "set_model", provider: `user:${id}`, model: "own-m" });
    await socket.next((m) => m.type === "model" && m.choice?.provider === `user:${id}`, from);
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && s.state === "ready"));
    await script(llm, key, [
      reply.text(reply.call("everything__trigger-sampling-request", { prompt: "hi", maxTokens: 10 }, { id: "s-own" })),
      reply.text("sampled on my key"),
      reply.text("done"),
    ]);
    const before = await account.tokensUsed();
    from = socket.say("sample please");
    const approval = (await socket.next((m) => m.type === "approval_request" && m.kind === "sampling", from)) as Extract<
      ServerMessage,
      { type: "approval_request" }
    >;
    expect(approval.prompt).toContain("— model own-m (the session's model)");
    socket.send({ type: "approval", callId: approval.callId, approved: true });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    const complete = messages.find((m) => m.type === "status" && m.state === "complete" && m.tool === "trigger-sampling-request");
    expect(JSON.stringify(complete)).toContain("sampled on my key");
    expect((await requests(llm, key)).map((r) => r.body.model)).toEqual(["own-m", "own-m", "own-m"]);
    // Nothing of it reached the deployment's budget (the next message would carry pending tokens: none are pending).
    expect(await account.tokensUsed()).toBe(before);
    expect(JSON.stringify(socket.received)).not.toContain(key);
    socket.close();
  });
});
