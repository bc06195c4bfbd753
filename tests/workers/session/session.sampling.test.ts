// Sampling through the whole path: the model calls server-everything's
// trigger-sampling-request (a stdio child of the real bridge), the server asks the
// real ChatSession for a completion, the user approves, and the fake Gemini records
// exactly what it was sent for it; the server's tool result shows what came back.
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { ServerMessage } from "../../../src/protocol/messages";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { env, runInDurableObject } from "cloudflare:test";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

type Approval = Extract<ServerMessage, { type: "approval_request" }>;

/** One turn whose tool call makes server-everything sample, with the sampling approved. */
async function sampledTurnEnd(
  socket: SessionClient,
  answer: ReturnType<typeof reply.stream>,
  args: Record<string, unknown> = { prompt: "hi", maxTokens: 10 },
  id = "s-0",
) {
  await script(llm, KEY, [reply.callReply("everything__trigger-sampling-request", args, { id }), answer, reply.text("done")]);
  const from = socket.say("sample please");
  const approval = (await socket.next((m) => m.type === "approval_request" && m.kind === "sampling", from)) as Approval;
  socket.send({ type: "approval", callId: approval.callId, approved: true });
  const { end, messages } = await socket.turnEnd(from);
  expect(end.reason).toBe("complete");
  return { approval, end, messages };
}

async function sampledTurn(socket: SessionClient, args: Record<string, unknown>, answer: ReturnType<typeof reply.stream>, id: string) {
  const { approval, messages } = await sampledTurnEnd(socket, answer, args, id);
  const complete = messages.find((m) => m.type === "status" && m.state === "complete" && m.tool === "trigger-sampling-request");
  const text = complete && complete.type === "status" ? String(complete.result) : "";
  // "LLM sampling result: \n{...}": the CreateMessageResult the server received.
  const result = JSON.parse(text.slice(text.indexOf("{"))) as Record<string, unknown>;
  const sent = (await requests(llm, KEY))[1];
  return { approval, result, sent, messages };
}

describe("sampling requests from a server", () => {
  it("sends maxTokens, the system prompt and the temperature to Gemini, and reports the model and endTurn", async () => {
    const socket = await openSession(crypto.randomUUID());
    const { approval, result, sent } = await sampledTurn(socket, { prompt: "say hi", maxTokens: 20 }, reply.stream(["sampled hello"]), "s-1");
    expect(approval.prompt).toBe(
      "system: You are a helpful test server.\nuser: Resource trigger-sampling-request context: say hi\n— model gemini-2.5-flash (the session's model), at most 20 tokens, temperature 0.7",
    );
    expect(sent?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(sent?.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "Resource trigger-sampling-request context: say hi" }] }],
      systemInstruction: { parts: [{ text: "You are a helpful test server." }], role: "user" },
      generationConfig: { temperature: 0.7, maxOutputTokens: 20 },
    });
    expect(result).toEqual({ role: "assistant", model: "gemini-2.5-flash", content: { type: "text", text: "sampled hello" }, stopReason: "endTurn" });
    socket.close();
  });

  it("caps maxTokens at SAMPLING_MAX_TOKENS and reports Gemini's MAX_TOKENS as maxTokens", async () => {
    const socket = await openSession(crypto.randomUUID());
    const { approval, result, sent } = await sampledTurn(
      socket,
      { prompt: "write a lot", maxTokens: 1_000_000 },
      reply.stream(["and so on and"], { finishReason: "MAX_TOKENS" }),
      "s-2",
    );
    expect(approval.prompt).toContain("at most 4096 tokens (asked 1000000)");
    expect(sent?.body.generationConfig).toEqual({ temperature: 0.7, maxOutputTokens: 4096 });
    expect(result).toMatchObject({ model: "gemini-2.5-flash", content: { type: "text", text: "and so on and" }, stopReason: "maxTokens" });
    socket.close();
  });

  it("counts the sampling answer's tokens into the user's daily spend", async () => {
    // Bob: no other turn of this file is still adding to his figure.
    const account = userAccount(env as unknown as Env, "token:bob");
    const before = await account.tokensUsed();
    const socket = await openSession(crypto.randomUUID(), "bob");
    const { end } = await sampledTurnEnd(socket, reply.stream(["counted"], { usage: { input: 100, output: 7 } }));
    // The sampling answer's 107 tokens are added before the server gets its answer; the
    // turn's own (its two model calls) right after turn_end, so they may or may not be in yet.
    const added = (await account.tokensUsed()) - before;
    const turn = (end.usage?.inputTokens ?? 0) + (end.usage?.outputTokens ?? 0);
    expect(turn).toBe(34);
    expect(added === 107 || added === 107 + turn).toBe(true);
    socket.close();
  });

  it("refuses a sampling request once the user's daily budget is used up, without asking the model", async () => {
    const account = userAccount(env as unknown as Env, "token:carol");
    await account.addUsage(Number((env as unknown as Env).DAILY_TOKEN_BUDGET));
    try {
      const response = await workerFetch(
        "/api/tools/everything.trigger-sampling-request",
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ arguments: { prompt: "x", maxTokens: 5 } }) },
        "carol",
      );
      const body = (await response.json()) as { result?: { content: { text: string }[]; isError?: boolean }; error?: { message: string } };
      // Through the bridge on 2026-07-28 the refusal fails the call itself, in the host's words (an input_required
      // answer can only be a result); on 2025 the server was answered with the error and its tool said so.
      expect(body.result?.isError ?? body.error !== undefined).toBe(true);
      expect(body.result?.content[0]?.text ?? body.error?.message).toContain("the user's daily model budget of 10000000 tokens is used up");
      expect(await requests(llm, KEY)).toEqual([]);
    } finally {
      // Carol's other tests (other files) must find her budget as it was.
      await runInDurableObject(account, (_instance, state) => void state.storage.sql.exec("DELETE FROM usage"));
    }
  });
});
