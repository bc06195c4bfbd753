// What a session keeps of its conversation and gives back, in real workerd with the
// real ChatSession, the bridge and the fake Gemini: an answer too large for its row is
// stored cut down (the page still got it whole), and the Markdown export writes every
// kind of entry a conversation holds.
import { abortAllDurableObjects } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { ServerMessage } from "../../../src/protocol/messages";
import { reply, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

async function turn(socket: SessionClient, text: string) {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return socket.turnEnd(from);
}

const streamed = (messages: ServerMessage[]) => messages.flatMap((m) => (m.type === "text" ? [m.delta] : [])).join("");

describe("a session's records", () => {
  it("stores an answer too large for its row cut down and marked, after streaming it whole", async () => {
    // Larger than a stored row may be (src/session/history.ts): 1 MiB in 16 pieces.
    const pieces = Array.from({ length: 16 }, (_, i) => `${i}:${"w".repeat(64 * 1024)}`);
    const whole = pieces.join("");
    await script(llm, KEY, [reply.text(...pieces), reply.text("short")]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const { end, messages } = await turn(socket, "write a lot");
    expect(end.reason).toBe("complete");
    // Compared by length and equality, not printed: a failure would print a megabyte.
    expect(streamed(messages).length).toBe(whole.length);
    expect(streamed(messages) === whole).toBe(true);
    socket.close();

    // Read back from storage, as after any restart.
    await abortAllDurableObjects();
    const history = (await (await workerFetch(`/sessions/${id}/history`)).json()) as {
      entries: { seq: number; kind: string; text?: string; cut?: { chars: number } }[];
    };
    // The history window sends it shortened again (src/session/history-window.ts); the entry route has it as stored.
    const shown = history.entries.find((e) => e.kind === "assistant");
    const stored = ((await (await workerFetch(`/sessions/${id}/history/${shown?.seq}`)).json()) as { entry: { text: string } }).entry.text;
    expect(shown?.cut).toEqual({ chars: stored.length });
    expect(stored.slice(-40)).toMatch(/…\[truncated\]$/);
    expect(stored.length).toBeLessThan(whole.length);
    expect(whole.startsWith(stored.replace(/…\[truncated\]$/, ""))).toBe(true);
    // The session goes on: a new socket's replay reads the cut row.
    const again = await openSession(id);
    expect(again.history().find((e) => e.kind === "assistant")?.text === shown?.text).toBe(true);
    const next = await turn(again, "and now?");
    expect(next.end.reason).toBe("complete");
    again.close();
  });

  it("exports a conversation as Markdown: messages, answers, tool calls with their arguments, results, errors and notices", async () => {
    await script(llm, KEY, [
      reply.callReply("filesystem__list_directory", { path: root }),
      reply.callReply("filesystem__list_directory", { path: "/etc" }),
      reply.text("Only notes.txt is yours."),
      reply.empty(),
    ]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    expect((await turn(socket, "what files do I have?")).end.reason).toBe("complete");
    expect((await turn(socket, "anything else?")).end.reason).toBe("complete");
    socket.close();
    const title = `Markdown export ${id}`;
    await workerFetch(`/sessions/${id}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ title }) });

    const markdown = await (await workerFetch("/api/export?format=markdown")).text();
    const section = markdown.slice(markdown.indexOf(`## ${title}`)).split(/\n## /)[0] ?? "";
    expect(section).toContain(`Session \`${id}\``);
    const lines = section.split("\n").filter((line) => /^(\*\*|\*Tool|> )/.test(line));
    expect(lines).toEqual([
      "**You:** what files do I have?",
      "*Tool call* `filesystem.list_directory` ```json",
      expect.stringMatching(/^\*Tool result\* \(`filesystem\.list_directory`\): .*\[FILE\] notes\.txt/),
      "*Tool call* `filesystem.list_directory` ```json",
      expect.stringMatching(/^\*Tool result\* \(`filesystem\.list_directory`, error\): .*(Access denied|outside allowed)/i),
      "**Assistant:** Only notes.txt is yours.",
      "**You:** anything else?",
      "> The model returned an empty answer.",
    ]);
    // Each call's arguments, as JSON under its line.
    expect(section).toContain(`"path": "${root}"`);
    expect(section).toContain(`"path": "/etc"`);
  });
});
