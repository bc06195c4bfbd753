// A 2025 child asks its client something while serving a 2026 request: the bridge answers
// the request with `input_required` and holds the child's question; the client's retry
// brings the answer and the call completes. server-everything's elicitation tool is the
// child's question, answered by the v2 client's own `elicitation/create` handler; raw
// POSTs then check that the requestState the bridge mints is refused when tampered with,
// replayed, echoed by another user or with another request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge, type RunningBridge } from "../fixtures/bridge";
import { connectModern, envelope, modernClient, modernHeaders, postRaw, type RawAnswer } from "../fixtures/bridge-modern";
import { everythingBin } from "../fixtures/servers";
import { INPUT_WAIT_MS, mintState, verifyState } from "../../local-bridge/src/modern-state";

const TOOL = "trigger-elicitation-request";
const ELICIT = { elicitation: { form: {} } };
let bridge: RunningBridge;

beforeAll(async () => {
  bridge = await startBridge({ everything: { command: process.execPath, args: [everythingBin, "stdio"] } }, ["--no-watch"]);
});
afterAll(async () => {
  await bridge?.stop();
});

const call = (id: number, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: TOOL, arguments: {}, _meta: envelope(ELICIT), ...extra },
});
const send = (body: unknown, user?: string): Promise<RawAnswer> =>
  postRaw(bridge, "everything", body, { ...modernHeaders("tools/call", TOOL), ...(user === undefined ? {} : { "x-edgehost-user": user }) });
const answerOf = (inputRequests: Record<string, unknown>) =>
  Object.fromEntries(Object.keys(inputRequests).map((key) => [key, { action: "accept", content: { name: "Ada", check: true } }]));
const REFUSED = { code: -32602, message: "Invalid or expired requestState", data: { reason: "invalid_request_state" } };

describe("bridge, input_required for a 2025 child's questions", () => {
  it("carries server-everything's elicitation to a v2 client's handler and back", async () => {
    const client = modernClient(ELICIT);
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Ada", check: true, integer: 7 } };
    });
    await connectModern(bridge, "everything", client);
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const result = await client.callTool({ name: TOOL, arguments: {} });
      const text = JSON.stringify(result.content);
      expect(text).toContain("accept");
      expect(text).toContain("Ada");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ message: expect.any(String), requestedSchema: { type: "object" } });
    } finally {
      await client.close();
    }
  });

  it("answers with input_required, completes on the retry, and refuses a replayed, tampered, foreign or rebound state", async () => {
    const first = await send(call(1), "ada");
    expect(first.status).toBe(200);
    expect(first.json.result.resultType).toBe("input_required");
    const { inputRequests, requestState } = first.json.result as { inputRequests: Record<string, { method: string }>; requestState: string };
    expect(Object.values(inputRequests).map((q) => q.method)).toEqual(["elicitation/create"]);
    // Opaque: it names neither the user nor the server (as words: the held call's random UUID may hold the letters "ada").
    expect(Buffer.from(requestState.split(".")[1] ?? "", "base64url").toString()).not.toMatch(/\bada\b|\beverything\b/);

    const answers = answerOf(inputRequests);
    // A later expiry written into the state, and one character of its MAC changed.
    const [version, body, tag = ""] = requestState.split(".");
    const [held, round, expires] = Buffer.from(body ?? "", "base64url")
      .toString()
      .split(".");
    const later = Buffer.from(`${held}.${round}.${Number(expires) + 60_000}`).toString("base64url");
    const flipped = `${tag.slice(0, 10)}${tag[10] === "A" ? "B" : "A"}${tag.slice(11)}`;
    for (const tampered of [`${version}.${later}.${tag}`, `${version}.${body}.${flipped}`]) {
      expect((await send(call(2, { inputResponses: answers, requestState: tampered }), "ada")).json.error).toEqual(REFUSED);
    }
    expect((await send(call(3, { inputResponses: answers, requestState }), "bob")).json.error).toEqual(REFUSED);
    const otherRequest = {
      ...call(4, { inputResponses: answers, requestState }),
      params: { ...call(4).params, arguments: { other: 1 }, inputResponses: answers, requestState },
    };
    expect((await send(otherRequest, "ada")).json.error).toEqual(REFUSED);

    const done = await send(call(5, { inputResponses: answers, requestState }), "ada");
    expect(done.status).toBe(200);
    expect(done.json.id).toBe(5);
    expect(done.json.result.resultType).toBe("complete");
    expect(JSON.stringify(done.json.result.content)).toContain("Ada");

    // The same state again: that round was answered.
    expect((await send(call(6, { inputResponses: answers, requestState }), "ada")).json.error).toEqual(REFUSED);
    expect((await send(call(7, { requestState: 42 }), "ada")).json.error).toEqual(REFUSED);
  });

  it("lets a state expire, and binds it to user, server and request", () => {
    const now = Date.now();
    const binding = { user: "ada", server: "everything", method: "tools/call", params: { name: TOOL, arguments: {} } };
    const state = mintState({ call: "c1", round: 0, expires: now + INPUT_WAIT_MS }, binding);
    expect(verifyState(state, { ...binding, params: { ...binding.params, _meta: {}, inputResponses: {}, requestState: state } }, now)).toEqual({
      call: "c1",
      round: 0,
      expires: now + INPUT_WAIT_MS,
    });
    expect(verifyState(state, binding, now + INPUT_WAIT_MS)).toBeUndefined();
    expect(verifyState(state, { ...binding, server: "other" }, now)).toBeUndefined();
    expect(verifyState(state, { ...binding, method: "prompts/get" }, now)).toBeUndefined();
  });
});
