// A turn's limits, through the real ChatSession Durable Object, the real bridge and
// the fake Gemini, as the Worker's own settings set them: a model that keeps calling
// tools is stopped after MAX_STEPS requests, and a long conversation whose summaries
// fail (compaction) is cut by whole turns so that what the model is sent stays under
// HISTORY_TOKEN_BUDGET.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { readSettings } from "../../../src/config/settings";
import type { ChatMessage } from "../../../src/llm/provider";
import { COMPACT_AT, KEEP_TURNS } from "../../../src/orchestrator/compaction";
import { estimateTokens } from "../../../src/orchestrator/prune";
import { MAX_MESSAGE_CHARS } from "../../../src/protocol/messages";
import { reply, requests, script, type RecordedRequest } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
/** The settings the session objects run with (vitest.config.ts' bindings, defaults for the rest). */
const { settings } = readSettings(env as unknown as Record<string, unknown>);

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

async function turn(socket: SessionClient, text: string) {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return socket.turnEnd(from);
}

interface GeminiPart {
  text?: string;
  functionCall?: { name: string };
  functionResponse?: { name: string };
}
/** The parts of a Gemini request's conversation, in order. */
const partsOf = (request: RecordedRequest | undefined) =>
  ((request?.body.contents ?? []) as { role: string; parts: GeminiPart[] }[]).flatMap((c) => c.parts.map((part) => ({ role: c.role, ...part })));

describe("MAX_STEPS", () => {
  it("ends a turn that keeps calling tools with max_steps after exactly MAX_STEPS model requests, its history still whole", async () => {
    const steps = settings.MAX_STEPS;
    await script(llm, KEY, [
      ...Array.from({ length: steps }, (_, i) => reply.callReply("filesystem__list_directory", { path: root }, { id: `again-${i}` })),
      // Never asked for in the turn: the next turn gets it.
      reply.text("Here is what I found."),
    ]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const { end, messages } = await turn(socket, "keep looking");
    expect(end.reason).toBe("max_steps");
    expect(await requests(llm, KEY)).toHaveLength(steps);
    const entries = messages.flatMap((m) => (m.type === "entry" ? [m.entry] : []));
    const results = entries.filter((e) => e.kind === "tool_result");
    expect(results).toHaveLength(steps);
    for (const result of results) expect(JSON.stringify(result)).toContain("[FILE] notes.txt");
    expect(entries.at(-1)).toMatchObject({ kind: "notice", text: `Stopped after ${steps} tool steps without a final answer.` });
    // Each request answered every call made before it.
    const last = partsOf((await requests(llm, KEY)).at(-1));
    expect(last.filter((p) => p.functionCall)).toHaveLength(steps - 1);
    expect(last.filter((p) => p.functionResponse)).toHaveLength(steps - 1);

    // The next turn sends the stopped one whole: every call with its result.
    const next = await turn(socket, "so?");
    expect(next.end.reason).toBe("complete");
    const all = await requests(llm, KEY);
    expect(all).toHaveLength(steps + 1);
    const resent = partsOf(all.at(-1));
    expect(resent.filter((p) => p.functionCall)).toHaveLength(steps);
    expect(resent.filter((p) => p.functionResponse)).toHaveLength(steps);
    const history = (await (await workerFetch(`/sessions/${id}/history`)).json()) as { entries: { kind: string }[] };
    expect(history.entries.map((e) => e.kind).slice(-4)).toEqual(["tool_result", "notice", "user", "assistant"]);
    socket.close();
  });
});

describe("HISTORY_TOKEN_BUDGET", () => {
  it("sends the model the newest whole turns that fit in the budget, however long the conversation grows", async () => {
    const budget = settings.HISTORY_TOKEN_BUDGET;
    // Turns of a long question (as long as a message may be) and a long answer: enough of them to pass the budget twice over.
    const question = (i: number) => `Q${i} ${"x".repeat(MAX_MESSAGE_CHARS - 8)}`;
    const answer = (i: number) => `A${i} ${"y".repeat(MAX_MESSAGE_CHARS)}`;
    const turnTokens = (i: number) => [{ role: "user", text: question(i) } as ChatMessage, { role: "assistant", text: answer(i) } as ChatMessage];
    const perTurn = turnTokens(0).reduce((n, m) => n + estimateTokens(m), 0);
    const count = Math.ceil((2 * budget) / perTurn) + 1;
    // Past COMPACT_AT of the budget each turn first asks for a summary of the oldest turns
    // (compaction); here every such request fails, so what keeps the request within the
    // budget is pruning alone. Turn i asks when the turns before it and its question pass it.
    const questionTokens = estimateTokens({ role: "user", text: question(0) });
    const compacts = (i: number) => i + 1 > KEEP_TURNS && i * perTurn + questionTokens > budget * COMPACT_AT;
    const refused = reply.error(400, {}, { error: { code: 400, message: "no summaries here", status: "INVALID_ARGUMENT" } });
    await script(llm, KEY, Array.from({ length: count }, (_, i) => (compacts(i) ? [refused, reply.text(answer(i))] : [reply.text(answer(i))])).flat());
    const socket = await openSession(crypto.randomUUID());
    for (let i = 0; i < count; i++) expect((await turn(socket, question(i))).end.reason).toBe("complete");
    socket.close();

    const all = await requests(llm, KEY);
    const asksSummary = (request: RecordedRequest) => JSON.stringify(request.body.contents).includes("Summarize the conversation above");
    expect(all.filter(asksSummary).length).toBe(Array.from({ length: count }, (_, i) => i).filter(compacts).length);
    const sent = all.filter((request) => !asksSummary(request));
    expect(sent).toHaveLength(count);
    let cut = false;
    for (const [i, request] of sent.entries()) {
      const texts = partsOf(request).map((p) => `${p.role}:${p.text?.split(" ")[0]}`);
      // Request i carries turns first..i: whole turns (each question with its answer), newest last.
      const first = Number(texts[0]?.slice("user:Q".length));
      const expected = Array.from({ length: i - first + 1 }, (_, k) => [`user:Q${first + k}`, `model:A${first + k}`])
        .flat()
        .slice(0, -1);
      expect(texts).toEqual(expected);
      const tokens = (from: number) =>
        Array.from({ length: i - from + 1 }, (_, k) => turnTokens(from + k))
          .flat()
          .slice(0, -1)
          .reduce((n, m) => n + estimateTokens(m), 0);
      expect(tokens(first)).toBeLessThanOrEqual(budget);
      // In the estimate's own terms, four characters a token: what went out fits.
      expect(partsOf(request).reduce((n, p) => n + (p.text?.length ?? 0), 0) / 4).toBeLessThanOrEqual(budget);
      // As many as fit: one older turn would have passed the budget.
      if (first > 0) {
        expect(tokens(first - 1)).toBeGreaterThan(budget);
        cut = true;
      }
    }
    expect(cut).toBe(true);
    // The last request left the oldest turns out.
    expect(JSON.stringify(sent.at(-1)?.body.contents)).not.toContain('"text":"Q0 ');
  });
});
