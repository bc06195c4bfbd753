// Change notifications from a person's own server of MCP 2026-07-28 only (issue 34), in
// real workerd with the real ChatSession and the fake Gemini: the session's host opens
// `subscriptions/listen`, so a tool the server adds reaches the page's server row and the
// model's next request, and a resource attached with `@` that changes is read again and
// the page told, as on 2025 over the GET stream. The server is the SDK's v2 server
// (tests/fixtures/v2-server.mjs, `legacy: "reject"`): `grow` adds a tool, `touch` changes
// note://board.
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { frameOf } from "../../fixtures/session-client";
import { sessionWith, withOwnServer } from "../own-servers";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** A tool name the shared fixture has not grown yet (it keeps what every test grew). */
const freshName = () => `kite_${Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => String.fromCharCode(97 + (b % 26))).join("")}`;

type Declared = { functionDeclarations?: { name: string }[] }[];
const declaredTools = (body: Record<string, unknown>) => ((body.tools ?? []) as Declared).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);

describe("a 2026-07-28 server's change notifications in the session", () => {
  it("a tool the server adds shows on its row and reaches the model, which can call it", async () => {
    const grown = freshName();
    await withOwnServer("grow26", inject("v2ModernUrl"), ["grow", grown], async () => {
      await script(llm, KEY, [
        reply.callReply("grow26__grow", { name: grown }, { id: "g-1" }),
        reply.text("grown"),
        reply.callReply(`grow26__${grown}`, {}, { id: "g-2" }),
        reply.text("called"),
      ]);
      const socket = await sessionWith("grow26");
      const row = (m: { servers: { name: string; state: string; toolCount: number }[] }) => m.servers.find((s) => s.name === "grow26");
      const first = socket.received.length;
      socket.send({ type: "message", text: "grow a tool" });
      const ready = await socket.next((m) => m.type === "servers" && row(m)?.state === "ready", first);
      const before = ready.type === "servers" ? (row(ready)?.toolCount ?? 0) : 0;
      // The list_changed arrives on the listen stream after the call: the row counts one tool more.
      await socket.next((m) => m.type === "servers" && (row(m)?.toolCount ?? 0) === before + 1, first);
      expect((await socket.turnEnd(first)).end.reason).toBe("complete");

      const second = socket.received.length;
      socket.send({ type: "message", text: "call it" });
      const { end, messages } = await socket.turnEnd(second);
      expect(end.reason).toBe("complete");
      const sent = await requests(llm, KEY);
      expect(declaredTools(sent.at(-2)?.body ?? {})).toContain(`grow26__${grown}`);
      // The call ran at the server: its answer (the tool's own name) is the call's completed status.
      expect(JSON.stringify(messages.find((m) => m.type === "status" && m.state === "complete"))).toContain(grown);
      socket.close();
    });
  });

  it("an attached resource the server changes is read again and the page is told", async () => {
    await withOwnServer("board26", inject("v2ModernUrl"), ["touch"], async () => {
      await script(llm, KEY, [
        reply.text("watching"),
        reply.callReply("board26__touch", { text: `changed ${crypto.randomUUID()}` }, { id: "t-1" }),
        reply.text("done"),
      ]);
      const socket = await sessionWith("board26");
      const first = socket.received.length;
      socket.send({ type: "message", text: "watch the board", attachments: [{ server: "board26", uri: "note://board" }] });
      expect((await socket.turnEnd(first)).end.reason).toBe("complete");

      const second = socket.received.length;
      socket.send({ type: "message", text: "change it" });
      const update = await socket.next(frameOf("resource_updated"), second);
      expect(update).toEqual({ type: "resource_updated", server: "board26", uri: "note://board" });
      expect((await socket.turnEnd(second)).end.reason).toBe("complete");
      socket.close();
    });
  });
});
