// A long conversation on connect (issue 27), in real workerd with the real ChatSession:
// the socket gets the newest part of the history within a byte budget, starting at
// a turn, big tool results shortened (the entry route has them whole), the tokens of
// the turns it shows and the session's running total; the older parts come from
// GET /sessions/{id}/history?before=…, page by page back to the first entry, for the
// owner only, the query checked. A long history is written through the session's own
// store (as months of turns would have), then the object restarts (a cold wake).
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ChatSession } from "../../../src/session/ChatSession";
import { HistoryStore } from "../../../src/session/history";
import type { HistoryEntry, ServerMessage } from "../../../src/protocol/messages";
import { reply, script } from "../../fixtures/fake-llm-script";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
type History = Extract<ServerMessage, { type: "history" }>;
type Page = { entries: HistoryEntry[]; older?: number; usage: Record<string, unknown>; usageTotal: { inputTokens: number; outputTokens: number } };
const BIG = "x".repeat(4_096);

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** `turns` turns of user → tool call → 4 KB result → answer, appended to the session's store, each on the path; 10+1 tokens each. */
async function writeTurns(id: string, turns: number): Promise<void> {
  const stub = await getAgentByName((env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>, id);
  await runInDurableObject(stub, (_instance, state) => {
    const store = new HistoryStore(state.storage.sql);
    for (let i = 0; i < turns; i++) {
      const turnId = `old-${i}`;
      store.tree.begin(turnId, store.tree.leaf() ?? null);
      store.append({ turnId, kind: "user", text: `question ${i}` });
      store.append({ turnId, kind: "tool_call", callId: `${turnId}.0.0`, server: "filesystem", tool: "read_text_file", arguments: { path: "a" } });
      store.append({
        turnId,
        kind: "tool_result",
        callId: `${turnId}.0.0`,
        server: "filesystem",
        tool: "read_text_file",
        durationMs: 1,
        result: `${i}:${BIG}`,
      });
      store.append({ turnId, kind: "assistant", text: `answer ${i}` });
      store.recordUsage(turnId, { inputTokens: 10, outputTokens: 1 });
    }
  });
  await abortAllDurableObjects();
}

const json = async (path: string, user: "alice" | "bob" = "alice") => {
  const response = await workerFetch(path, {}, user);
  return { status: response.status, body: (await response.json()) as Page & { entry?: HistoryEntry; error?: { code: string; message: string } } };
};

describe("the history on connect and on scroll", () => {
  it("sends the newest part within the budget, and the rest page by page back to the first entry", async () => {
    const id = crypto.randomUUID();
    (await openSession(id)).close(); // alice owns it
    await writeTurns(id, 300); // 1,200 entries, 1.2 MB of tool results

    const socket = await openSession(id);
    const frame = socket.received.find((m): m is History => m.type === "history");
    const bytes = JSON.stringify(frame).length;
    expect(bytes).toBeLessThan(64 * 1024);
    const shown = frame?.entries ?? [];
    expect(shown.at(-1)?.text).toBe("answer 299");
    // It starts at a turn's first entry, and says where the older part ends.
    expect(shown[0]?.kind).toBe("user");
    expect(frame?.older).toBe(shown[0]?.seq);
    // Big results are shortened, marked with their size; the entry route has them whole.
    const result = shown.find((e) => e.kind === "tool_result");
    expect(result?.cut?.chars).toBeGreaterThan(4_096);
    expect(String(result?.result).length).toBeLessThan(2_100);
    const whole = await json(`/sessions/${id}/history/${result?.seq}`);
    expect(whole.body.entry?.result).toMatch(/^\d+:x{4096}$/);
    // Tokens of the turns shown, and of all 300 turns in all.
    const turns = new Set(shown.map((e) => e.turnId));
    expect(Object.keys(frame?.usage ?? {}).sort()).toEqual([...turns].sort());
    expect(frame?.usageTotal).toEqual({ inputTokens: 3_000, outputTokens: 300 });
    socket.close();

    // Scrolling up: pages before `older`, each starting at a turn, until none is left.
    const seen = [...shown];
    let before = frame?.older;
    let pages = 0;
    while (before !== undefined) {
      const page = await json(`/sessions/${id}/history?before=${before}`);
      expect(page.status).toBe(200);
      expect(page.body.entries.length).toBeGreaterThan(0);
      expect(page.body.entries[0]?.kind).toBe("user");
      expect(page.body.entries.every((e) => e.seq < (before ?? 0))).toBe(true);
      seen.unshift(...page.body.entries);
      before = page.body.older;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    // Every entry once, in order, from the very first.
    expect(seen.map((e) => e.seq)).toEqual([...seen.map((e) => e.seq)].sort((a, b) => a - b));
    expect(new Set(seen.map((e) => e.seq)).size).toBe(seen.length);
    expect(seen.filter((e) => e.kind === "user")).toHaveLength(300);
    expect(seen[0]?.text).toBe("question 0");
  });

  it("keeps the versions of the turns shown and adds new turns to the total", async () => {
    const id = crypto.randomUUID();
    (await openSession(id)).close();
    await writeTurns(id, 60);
    await script(llm, KEY, [reply.stream(["first"], { usage: { input: 7, output: 3 } }), reply.stream(["second"], { usage: { input: 5, output: 2 } })]);
    const socket = await openSession(id);
    let from = socket.received.length;
    socket.send({ type: "message", text: "new question" });
    const end = await socket.turnEnd(from);
    from = socket.received.length;
    socket.send({ type: "regenerate", turnId: end.end.turnId });
    await socket.turnEnd(from);
    socket.close();
    const again = await openSession(id);
    const frame = again.received.find((m): m is History => m.type === "history");
    expect(frame?.entries.at(-1)?.text).toBe("second");
    expect(Object.values(frame?.branches ?? {})).toEqual([expect.objectContaining({ index: 2, count: 2 })]);
    expect(frame?.older).toBeDefined();
    expect(frame?.usageTotal).toEqual({ inputTokens: 600 + 12, outputTokens: 60 + 5 });
    again.close();
  });

  it("answers another user 404 and a bad query a typed 400", async () => {
    const id = crypto.randomUUID();
    (await openSession(id)).close();
    await writeTurns(id, 3);
    const mine = await json(`/sessions/${id}/history`);
    const seq = mine.body.entries[1]?.seq;
    expect(mine.body.older).toBeUndefined();
    expect((await json(`/sessions/${id}/history?before=${seq}`, "bob")).status).toBe(404);
    expect((await json(`/sessions/${id}/history/${seq}`, "bob")).status).toBe(404);
    for (const query of ["before=abc", "before=-1", "before=1.5", "after=3"]) {
      const bad = await json(`/sessions/${id}/history?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error?.code).toBe("bad_request");
    }
    expect((await json(`/sessions/${id}/history/999999`)).body.error?.code).toBe("not_found");
  });
});
