// A person's own MCP servers on the SDK's v2 server (tests/fixtures/v2-server.mjs), in real
// workerd with the real ChatSession and the fake Gemini (issue 34): a server that speaks
// only MCP 2026-07-28 connects and its tool runs; a server's question (an input_required
// result on 2026) reaches the person through the session's question path
// (elicitation_request), and their answer goes back to the server.
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type SessionClient } from "../../fixtures/session-client";
import { sessionWith, withOwnServer } from "../own-servers";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
/** The fixture's tools that need no approval here. */
const TOOLS = ["echo", "ask"];

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

function send(socket: SessionClient, text: string): number {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return from;
}

const completed = (messages: { type: string }[]) => JSON.stringify(messages.find((m) => m.type === "status" && (m as { state?: string }).state === "complete"));

describe("a person's servers of MCP 2026-07-28", () => {
  it("connects a server that speaks only 2026-07-28, and the model's call to its tool runs", async () => {
    await withOwnServer("modern26", inject("v2ModernUrl"), TOOLS, async () => {
      await script(llm, KEY, [reply.callReply("modern26__echo", { text: "over 2026" }, { id: "m-1" }), reply.text("done")]);
      const socket = await sessionWith("modern26");
      const from = send(socket, "echo it");
      const { end, messages } = await socket.turnEnd(from);
      expect(end.reason).toBe("complete");
      expect(completed(messages)).toContain("over 2026");
      socket.close();
    });
  });

  it("says the revision on the server's row and keeps the era with its discovery, so a new session connects without a probe", async () => {
    const url = inject("v2ModernUrl");
    const methods = async () => (await (await fetch(new URL("/methods", url))).json()) as string[];
    await withOwnServer("kept26", url, TOOLS, async () => {
      await script(llm, KEY, [reply.text("first")]);
      const first = await sessionWith("kept26");
      const mark = (await methods()).length;
      await first.turnEnd(send(first, "hi"));
      const rows = first.received.filter(frameOf("servers")).flatMap((m) => m.servers.filter((s) => s.name === "kept26"));
      expect(rows.at(-1)).toMatchObject({ state: "ready", protocol: "2026-07-28" });
      expect((await methods()).slice(mark)).toContain("server/discover");
      first.close();

      // Another session of the owner: the era comes with the row its first session kept; no probe, the call runs.
      await script(llm, KEY, [reply.callReply("kept26__echo", { text: "no probe" }, { id: "k-1" }), reply.text("done")]);
      const second = await sessionWith("kept26");
      const from = (await methods()).length;
      const { end, messages } = await second.turnEnd(send(second, "echo"));
      expect(end.reason).toBe("complete");
      expect(completed(messages)).toContain("no probe");
      const sent = (await methods()).slice(from);
      expect(sent).toContain("tools/call");
      expect(sent).not.toContain("server/discover");
      expect(
        second.received
          .filter(frameOf("servers"))
          .flatMap((m) => m.servers.filter((s) => s.name === "kept26"))
          .at(-1),
      ).toMatchObject({
        protocol: "2026-07-28",
      });
      second.close();
    });
  });

  it("asks the person a 2026 server's question and gives the server their answer", async () => {
    await withOwnServer("both26", inject("v2BothUrl"), TOOLS, async () => {
      await script(llm, KEY, [reply.callReply("both26__ask", {}, { id: "a-1" }), reply.text("Greeted.")]);
      const socket = await sessionWith("both26");
      const from = send(socket, "greet me");
      const request = await socket.next(frameOf("elicitation_request"), from);
      expect(request).toMatchObject({ server: "both26", message: "What is your name?", schema: { type: "object", properties: { name: { type: "string" } } } });
      socket.send({ type: "elicitation_response", requestId: request.requestId, action: "accept", content: { name: "Ada" } });
      const { end, messages } = await socket.turnEnd(from);
      expect(end.reason).toBe("complete");
      expect(messages).toContainEqual({ type: "elicitation_resolved", requestId: request.requestId });
      expect(completed(messages)).toContain("Hello, Ada!");
      socket.close();
    });
  });
});
