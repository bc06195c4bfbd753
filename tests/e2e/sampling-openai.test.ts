// Sampling through the whole product with an OpenAI-compatible model: `wrangler dev`
// with LLM_PROVIDER=openai and SAMPLING_MODELS, the real bridge running
// server-everything over stdio, and the fake endpoint recording what it is sent. The
// model calls trigger-sampling-request, the server asks the session, the user approves
// over the socket, and the endpoint gets the sampling request as chat completions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerMessage } from "../../src/protocol/messages";
import { startFakeLlm, type FakeLlm } from "../fixtures/fake-gemini";
import { reply, requests, script, uniqueKey } from "../fixtures/fake-llm-script";
import { everythingBin } from "../fixtures/servers";
import { openSession } from "../fixtures/session-client-node";
import { createSession } from "../fixtures/session-http";
import { startStack, type Stack } from "../fixtures/stack";

const key = uniqueKey("sampling-openai-stack");
let llm: FakeLlm;
let stack: Stack;
beforeAll(async () => {
  llm = await startFakeLlm();
  stack = await startStack({
    vars: {
      LLM_PROVIDER: "openai",
      OPENAI_BASE_URL: `${llm.url}/v1`,
      OPENAI_MODEL: "chat-small",
      OPENAI_API_KEY: key,
      SAMPLING_MODELS: "chat-small,chat-large",
    },
    mcpServers: { everything: { command: process.execPath, args: [everythingBin, "stdio"], alwaysAllow: ["trigger-sampling-request"] } },
  });
}, 90_000);
afterAll(async () => {
  await Promise.all([stack?.stop(), llm?.stop()]);
});

type Approval = Extract<ServerMessage, { type: "approval_request" }>;

describe("sampling with an OpenAI-compatible model, through the Worker and the bridge", () => {
  it("sends the system message, max_tokens and temperature, and reports length as maxTokens", async () => {
    await script(llm.url, key, [
      reply.callReply("everything__trigger-sampling-request", { prompt: "one word", maxTokens: 3 }, { id: "call_s1" }),
      reply.stream(["Blue"], { finishReason: "length" }),
      reply.text("done"),
    ]);
    const socket = await openSession(stack.url, await createSession(stack.url));
    const from = socket.say("sample");
    const approval = (await socket.next((m) => m.type === "approval_request" && m.kind === "sampling", from)) as Approval;
    expect(approval.prompt).toBe(
      "system: You are a helpful test server.\nuser: Resource trigger-sampling-request context: one word\n— model chat-small (the session's model), at most 3 tokens, temperature 0.7",
    );
    socket.send({ type: "approval", callId: approval.callId, approved: true });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");

    const sent = (await requests(llm.url, key))[1];
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.body).toEqual({
      model: "chat-small",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are a helpful test server." },
        { role: "user", content: "Resource trigger-sampling-request context: one word" },
      ],
      temperature: 0.7,
      max_tokens: 3,
    });
    const complete = messages.find((m) => m.type === "status" && m.state === "complete" && m.tool === "trigger-sampling-request");
    const text = complete?.type === "status" ? String(complete.result) : "";
    expect(JSON.parse(text.slice(text.indexOf("{")))).toEqual({
      role: "assistant",
      model: "chat-small",
      content: { type: "text", text: "Blue" },
      stopReason: "maxTokens",
    });
    socket.close();
  });
});
