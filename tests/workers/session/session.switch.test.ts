// Switching models mid-conversation, end to end in workerd: the real ChatSession, the real
// bridge and server-filesystem, and three providers behind the fake model server: the
// deployment's Gemini, and an OpenAI-compatible endpoint and Anthropic added by the user
// with their own keys. Each provider gets the earlier tool calls and results in its own
// form (Gemini's calls have no id; OpenAI's and Anthropic's answers must name theirs), each
// answer records its model, the user's keys never reach a frame or an answer, and turns on
// the user's keys do not count against the deployment's daily budget.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { reply, requests, script, uniqueKey } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const USER = "dave";

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

async function addProvider(entry: Record<string, unknown>): Promise<void> {
  const response = await workerFetch(
    "/api/my-providers",
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(entry) },
    USER,
  );
  expect(response.status).toBe(201);
}

async function choose(socket: SessionClient, provider: string, model: string): Promise<void> {
  const from = socket.received.length;
  socket.send({ type: "set_model", provider, model });
  await socket.next((m) => m.type === "model" && m.choice?.provider === provider && m.choice.model === model, from);
}

async function turn(socket: SessionClient, text: string) {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return socket.turnEnd(from);
}

describe("switching models mid-conversation", () => {
  it("carries tool calls and results from Gemini to an OpenAI-compatible endpoint to Anthropic", async () => {
    const suffix = crypto.randomUUID().slice(0, 6);
    const oaKey = uniqueKey("switch-openai");
    const claudeKey = uniqueKey("switch-claude");
    await addProvider({ id: `oa${suffix}`, kind: "openai", label: "Mine", baseUrl: `${llm}/v1`, apiKey: oaKey, models: ["gpt-fake"] });
    await addProvider({ id: `cl${suffix}`, kind: "anthropic", label: "Claude", baseUrl: llm, apiKey: claudeKey, models: ["claude-fake"] });
    const me = (await (await workerFetch("/api/me", {}, USER)).json()) as { user: { id: string } };
    const account = userAccount(env as unknown as Env, me.user.id);

    const socket = await openSession(crypto.randomUUID(), USER);
    await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "filesystem" && s.state === "ready"));

    // 1. Gemini lists the folder (its call has no id), then answers.
    await script(llm, KEY, [
      reply.callReply("filesystem__list_directory", { path: root }),
      reply.stream(["Gemini: notes.txt is there."], { usage: { input: 10, output: 7 } }),
    ]);
    const usedBefore = await account.tokensUsed();
    expect((await turn(socket, "what is in the folder?")).end.reason).toBe("complete");

    // 2. The user's OpenAI-compatible endpoint reads the file, then answers.
    await choose(socket, `user:oa${suffix}`, "gpt-fake");
    await script(llm, oaKey, [
      reply.text(reply.call("filesystem__read_text_file", { path: `${root}/notes.txt` }, { id: "call_oa_1" })),
      reply.text("OpenAI: read it."),
    ]);
    expect((await turn(socket, "read notes.txt")).end.reason).toBe("complete");
    const openai = await requests(llm, oaKey);
    const seenByOpenai = openai[0]?.body.messages as {
      role: string;
      tool_calls?: { id: string; function: { name: string } }[];
      tool_call_id?: string;
      content?: unknown;
    }[];
    const geminiCall = seenByOpenai.find((m) => m.role === "assistant" && m.tool_calls)?.tool_calls?.[0];
    expect(geminiCall).toMatchObject({ id: expect.stringMatching(/^call_\d+$/), function: { name: "filesystem__list_directory" } });
    expect(seenByOpenai.find((m) => m.role === "tool")).toMatchObject({ tool_call_id: geminiCall?.id, content: expect.stringContaining("notes.txt") });
    expect(seenByOpenai.find((m) => m.role === "assistant" && m.content === "Gemini: notes.txt is there.")).toBeDefined();

    // 3. Anthropic answers from both earlier results.
    await choose(socket, `user:cl${suffix}`, "claude-fake");
    await script(llm, claudeKey, [reply.text("Claude: both results read.")]);
    expect((await turn(socket, "summarise")).end.reason).toBe("complete");
    const [claude] = await requests(llm, claudeKey);
    type Block = { type: string; id?: string; name?: string; tool_use_id?: string; text?: string; content?: { type: string; text?: string }[] };
    const seenByClaude = claude?.body.messages as { role: string; content: Block[] }[];
    expect(seenByClaude.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user"]);
    const uses = seenByClaude.flatMap((m) => m.content.filter((b) => b.type === "tool_use"));
    const results = seenByClaude.flatMap((m) => m.content.filter((b) => b.type === "tool_result"));
    expect(uses.map((u) => [u.id, u.name])).toEqual([
      [geminiCall?.id, "filesystem__list_directory"],
      ["call_oa_1", "filesystem__read_text_file"],
    ]);
    expect(results.map((r) => r.tool_use_id)).toEqual([geminiCall?.id, "call_oa_1"]);
    expect(results[1]?.content?.[0]?.text).toContain("remember the milk");
    expect(seenByClaude.at(-1)?.content.at(-1)).toEqual({ type: "text", text: "summarise" });

    // Each answer says which model gave it.
    expect(socket.entries().flatMap((e) => (e.kind === "assistant" && e.text ? [`${e.model}: ${e.text}`] : []))).toEqual([
      "gemini/gemini-2.5-flash: Gemini: notes.txt is there.",
      `user:oa${suffix}/gpt-fake: OpenAI: read it.`,
      `user:cl${suffix}/claude-fake: Claude: both results read.`,
    ]);

    // 4. Back on the deployment's Gemini: its admission carries every unreported token, and
    // only the two Gemini turns count against the daily budget (12 + 5 default, 10 + 7 above).
    await choose(socket, "gemini", "gemini-2.5-flash");
    await script(llm, KEY, [reply.text("Gemini again.")]);
    expect((await turn(socket, "thanks")).end.reason).toBe("complete");
    await expect.poll(() => account.tokensUsed(), { timeout: 10_000 }).toBe(usedBefore + 12 + 5 + 10 + 7 + 12 + 5);

    // The user's keys never reach the page.
    const frames = JSON.stringify(socket.received);
    const history = await (await workerFetch(`/sessions/${socket.sessionId}/history`, {}, USER)).text();
    for (const key of [oaKey, claudeKey]) {
      expect(frames).not.toContain(key);
      expect(history).not.toContain(key);
    }
    socket.close();
  });
});
