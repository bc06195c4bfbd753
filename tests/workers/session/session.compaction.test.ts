// Compaction on the real ChatSession with the fake Gemini: when the conversation the
// model would get passes 75 % of HISTORY_TOKEN_BUDGET (32,000 here), the oldest turns
// are summarized by the model into one entry that stands in for them; `/compact` does
// it on demand; a failed summary falls back to pruning, saying so.
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { HistoryEntry, ServerMessage } from "../../../src/protocol/messages";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

async function send(socket: SessionClient, frame: Record<string, unknown>) {
  const from = socket.received.length;
  socket.send(frame);
  return socket.turnEnd(from);
}

type ModelRequest = { system: string; contents: string };
async function modelRequest(index: number): Promise<ModelRequest> {
  const body = (await requests(llm, KEY))[index]?.body;
  return { system: JSON.stringify(body?.systemInstruction ?? ""), contents: JSON.stringify(body?.contents ?? "") };
}

const summaries = (socket: SessionClient): HistoryEntry[] =>
  socket.received.flatMap((m: ServerMessage) => (m.type === "entry" && m.entry.kind === "summary" ? [m.entry] : []));

/** An answer of about 7,500 estimated tokens (4 characters a token). */
const long = (letter: string) => `${letter.repeat(29_990)} end-${letter}`;

describe("compaction", () => {
  it("summarizes the oldest turns once the conversation passes 75 % of the budget, and the model reads the summary instead", async () => {
    await script(llm, KEY, [
      reply.text(long("a")),
      reply.text(long("b")),
      reply.text(long("c")),
      reply.text(long("d")),
      reply.text("The user asked for three long letters: a, b and c."),
      reply.text("Here is the fifth."),
    ]);
    const socket = await openSession(crypto.randomUUID());
    const turns: string[] = [];
    for (const question of ["first", "second", "third", "fourth"]) {
      const { end } = await send(socket, { type: "message", text: `${question} question` });
      expect(end.reason).toBe("complete");
      turns.push(end.turnId);
    }
    // About 30,000 tokens: past 24,000. The fifth turn folds all but the newest two (the fourth and itself).
    const fifth = await send(socket, { type: "message", text: "fifth question" });
    expect(fifth.end.reason).toBe("complete");
    const [summary] = summaries(socket);
    expect(summary).toMatchObject({ kind: "summary", text: "The user asked for three long letters: a, b and c.", summaryOf: { turns: 3, upTo: turns[2] } });
    // The summary was asked of the three oldest turns.
    const asked = await modelRequest(4);
    expect(asked.contents).toContain("first question");
    expect(asked.contents).toContain("end-c");
    expect(asked.contents).not.toContain("end-d");
    expect(asked.contents).toContain("Summarize the conversation above");
    // The answer's request: the summary in the system prompt, the fourth turn and the fifth question, nothing older.
    const answered = await modelRequest(5);
    expect(answered.system).toContain("The user asked for three long letters");
    expect(answered.contents).not.toContain("first question");
    expect(answered.contents).not.toContain("end-c");
    expect(answered.contents).toContain("fourth question");
    expect(answered.contents).toContain("end-d");
    expect(answered.contents).toContain("fifth question");
    // The summary's tokens count with the turn that made it.
    expect(fifth.end.usage?.inputTokens).toBeGreaterThan(0);
    socket.close();
  });

  it("compacts every turn so far on /compact, as a turn of its own; the next turn reads only the summary", async () => {
    await script(llm, KEY, [reply.text("Paris."), reply.text("Blue."), reply.text("Asked about France and the sky."), reply.text("Noted.")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    await send(socket, { type: "message", text: "capital of France?" });
    const second = await send(socket, { type: "message", text: "colour of the sky?" });
    const compacted = await send(socket, { type: "compact" });
    expect(compacted.end.reason).toBe("complete");
    expect(summaries(socket)).toEqual([expect.objectContaining({ text: "Asked about France and the sky.", summaryOf: { turns: 2, upTo: second.end.turnId } })]);
    await send(socket, { type: "message", text: "and now?" });
    const next = await modelRequest(3);
    expect(next.system).toContain("Asked about France and the sky.");
    expect(next.contents).not.toContain("capital of France");
    expect(next.contents).toContain("and now?");
    // A reload shows the turns, then the marker, then what followed.
    const again = await openSession(id);
    const history = again.received.find((m): m is Extract<ServerMessage, { type: "history" }> => m.type === "history");
    expect(history?.entries.map((e) => e.kind)).toEqual(["user", "assistant", "user", "assistant", "summary", "user", "assistant"]);
    socket.close();
    again.close();
  });

  it("says there is nothing to compact in a new session, and refuses /compact while a turn runs", async () => {
    await script(llm, KEY, [reply.hang("working")]);
    const socket = await openSession(crypto.randomUUID());
    const nothing = await send(socket, { type: "compact" });
    expect(nothing.messages).toContainEqual(
      expect.objectContaining({ type: "entry", entry: expect.objectContaining({ kind: "notice", text: "Nothing to compact yet." }) }),
    );
    const from = socket.received.length;
    socket.send({ type: "message", text: "long job" });
    await socket.next((m) => m.type === "text", from);
    socket.send({ type: "compact" });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({ code: "turn_in_progress" });
    socket.send({ type: "cancel" });
    await socket.turnEnd(from);
    socket.close();
  });

  it("goes on when the summary fails: the turn completes, and the user is told what that means", async () => {
    await script(llm, KEY, [
      reply.text(long("a")),
      reply.text(long("b")),
      reply.text(long("c")),
      reply.text(long("d")),
      reply.error(400, {}, { error: { code: 400, message: "too long", status: "INVALID_ARGUMENT" } }),
      reply.text("Still here."),
    ]);
    const socket = await openSession(crypto.randomUUID());
    for (const question of ["first", "second", "third", "fourth"]) await send(socket, { type: "message", text: question });
    const fifth = await send(socket, { type: "message", text: "fifth" });
    expect(fifth.end.reason).toBe("complete");
    expect(fifth.messages).toContainEqual(
      expect.objectContaining({ type: "entry", entry: expect.objectContaining({ kind: "notice", text: expect.stringContaining("could not be summarized") }) }),
    );
    expect(summaries(socket)).toEqual([]);
    // Still within the budget (pruning's limit): the model read every turn as it was.
    const answered = await modelRequest(5);
    expect(answered.contents).toContain("end-a");
    expect(answered.contents).toContain("fifth");
    socket.close();
  });
});
