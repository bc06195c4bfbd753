// Two calls on one 2025 child that both ask their client something (ask-gate.ts): two
// 2026 requests, then two 2025 sessions of the same (local) user.
// Over stdio nothing says which call a question is for: the child's ask_later (a real
// SDK 1.x server, tests/fixtures/asking-server.mjs) asks "Name for <label>?" once the
// test releases its label. Call A is running at the child (its progress came) when B is
// sent; B is released first. Were B let into the child beside A, B's question would be
// taken for A's (the oldest call that can be asked) and A's client asked B's question.
// The gate holds only at a child that has asked something: the first test shows calls
// side by side before that.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { envelope, modernHeaders, postRaw } from "../fixtures/bridge-modern";
import { repoRoot } from "../fixtures/servers";
import { raw, type RawAnswer } from "./raw-sse";

const askingBin = `${repoRoot}/tests/fixtures/asking-server.mjs`;
const ELICIT = { elicitation: {} };
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge({ asking: { command: process.execPath, args: [askingBin] } }, ["--no-watch"]);
});
afterAll(async () => {
  await bridge?.stop();
});

const askLater = (id: number, label: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "ask_later", arguments: { label }, _meta: { ...envelope(ELICIT), progressToken: `p-${label}` }, ...extra },
});

function post(body: unknown): Promise<RawAnswer> {
  return raw(`${bridge.url}/servers/asking/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bridge.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...modernHeaders("tools/call", "ask_later"),
    },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC answer of a finished POST (plain JSON, or the last block of an SSE answer). */
async function answerOf(answer: RawAnswer): Promise<{ id: number; result: any }> {
  await answer.ended;
  const sse = answer.blocks.filter((b) => b.data !== "");
  return JSON.parse(sse.length > 0 ? (sse.at(-1)?.data ?? "") : answer.text());
}

/** Releases `label` from a client that cannot be asked: such a call never waits at the gate. */
async function release(label: string): Promise<void> {
  const body = { jsonrpc: "2.0", id: 900, method: "tools/call", params: { name: "release", arguments: { label }, _meta: envelope() } };
  const done = await postRaw(bridge, "asking", body, modernHeaders("tools/call", "release"));
  expect(done.json.result.content).toEqual([{ type: "text", text: "released" }]);
}

const questionOf = (result: any): string => {
  expect(result.resultType).toBe("input_required");
  const questions = Object.values(result.inputRequests as Record<string, { params: { message: string } }>);
  expect(questions).toHaveLength(1);
  return questions[0]?.params.message ?? "";
};

const retry = (id: number, label: string, first: any, name: string) => {
  const [key = ""] = Object.keys(first.inputRequests);
  return askLater(id, label, { inputResponses: { [key]: { action: "accept", content: { name } } }, requestState: first.requestState });
};

/** Releases `label` from a 2026 client that can be asked: once the child has asked something, such a call takes its turn. */
async function releaseAskable(label: string): Promise<void> {
  const body = { jsonrpc: "2.0", id: 901, method: "tools/call", params: { name: "release", arguments: { label }, _meta: envelope(ELICIT) } };
  const done = await postRaw(bridge, "asking", body, modernHeaders("tools/call", "release"));
  expect(done.json.result.content).toEqual([{ type: "text", text: "released" }]);
}

describe("bridge, two 2026 calls asking through one 2025 child", () => {
  // Runs first: the child has not asked anything yet.
  it("runs one user's askable calls side by side at a child that has never asked (a model's parallel calls stay parallel)", async () => {
    const a = await post(askLater(11, "N"));
    expect(JSON.parse((await a.next((b) => b.data.includes("notifications/progress"))).data).params.message).toBe("waiting");
    // Taking turns, this call would wait for A, which waits for it.
    await releaseAskable("N");
    const first = await answerOf(a);
    expect(questionOf(first.result)).toBe("Name for N?");
    const done = await post(retry(12, "N", first.result, "Nia")).then(answerOf);
    expect(done.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "N: Hello, Nia!" }] });
  });

  // From here on the child has asked: its askable calls take turns.
  it("puts each call's question to that call's client and its answer to that call", async () => {
    const a = await post(askLater(1, "A"));
    // A runs at the child: its progress came on A's answer.
    expect(JSON.parse((await a.next((b) => b.data.includes("notifications/progress"))).data).params.message).toBe("waiting");
    const b = post(askLater(2, "B"));
    await release("B");
    await release("A");
    const [firstA, firstB] = await Promise.all([answerOf(a), b.then(answerOf)]);
    expect(firstA.id).toBe(1);
    expect(questionOf(firstA.result)).toBe("Name for A?");
    expect(firstB.id).toBe(2);
    expect(questionOf(firstB.result)).toBe("Name for B?");

    // Both retries at once: each answer reaches its own call.
    const [doneA, doneB] = await Promise.all([
      post(retry(3, "A", firstA.result, "Ada")).then(answerOf),
      post(retry(4, "B", firstB.result, "Bob")).then(answerOf),
    ]);
    expect(doneA.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "A: Hello, Ada!" }] });
    expect(doneB.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "B: Hello, Bob!" }] });
  });

  it("asks each 2025 session its own call's question", async () => {
    const a = await connectClient(bridge, "asking", { elicitation: {} });
    const b = await connectClient(bridge, "asking", { elicitation: {} });
    const asked: Record<string, string[]> = { a: [], b: [] };
    for (const [key, session, name] of [
      ["a", a, "Ada"],
      ["b", b, "Bob"],
    ] as const) {
      session.client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked[key]?.push(request.params.message);
        return { action: "accept", content: { name } };
      });
    }
    try {
      let started = () => {};
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      // A runs at the child once its progress came; then B is sent and released first.
      const callA = a.client.callTool({ name: "ask_later", arguments: { label: "A2" } }, undefined, { onprogress: () => started() });
      await running;
      const callB = b.client.callTool({ name: "ask_later", arguments: { label: "B2" } });
      await release("B2");
      await release("A2");
      expect((await callA).content).toEqual([{ type: "text", text: "A2: Hello, Ada!" }]);
      expect((await callB).content).toEqual([{ type: "text", text: "B2: Hello, Bob!" }]);
      expect(asked).toEqual({ a: ["Name for A2?"], b: ["Name for B2?"] });
    } finally {
      await Promise.allSettled([a.client.close(), b.client.close()]);
    }
  });
});
