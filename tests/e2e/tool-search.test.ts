// Many tools (issue 27), through the real Worker (wrangler dev), the bridge running
// server-filesystem and three many-tools servers (tests/fixtures/many-tools-server.mjs:
// alpha and beta with 30 tools each, ledger with 400) and the fake Gemini. Up to 50
// tools every request declares them all; beyond that it declares whole servers the
// conversation used and the smallest ones within 50, plus `search_tools`, and a
// tool the model finds with it is declared from the next step on. The cost in
// answer quality on these tests: a tool outside the declared set takes the model
// one more step (a search) before it can call it; nothing else changes.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, reply, requests, script } from "../fixtures/fake-llm-script";
import { repoRoot } from "../fixtures/servers";
import type { Message, SessionClient } from "../fixtures/session-client";
import { openSession } from "../fixtures/session-client-node";
import { startStack, type Stack } from "../fixtures/stack";

const manyTools = join(repoRoot, "tests", "fixtures", "many-tools-server.mjs");
const declared = (request: RecordedRequest | undefined): string[] =>
  ((request?.body.tools as { functionDeclarations?: { name: string }[] }[] | undefined) ?? []).flatMap((t) =>
    (t.functionDeclarations ?? []).map((d) => d.name),
  );
const byServer = (names: string[]) => [...new Set(names.map((n) => n.split("__")[0]))].sort();

describe("many tools", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      mcpServers: {
        alpha: { command: process.execPath, args: [manyTools, "30", "alpha"] },
        beta: { command: process.execPath, args: [manyTools, "30", "beta"], alwaysAllow: ["beta_lookup_0"] },
        ledger: { command: process.execPath, args: [manyTools, "400", "ledger"], alwaysAllow: ["ledger_archive_3"] },
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** A session with only `servers` switched on, once they are ready. */
  const session = async (servers: string[]): Promise<SessionClient> => {
    const socket = await openSession(stack.url, crypto.randomUUID());
    socket.send({ type: "set_servers", enabled: servers });
    await socket.next(
      (m) =>
        m.type === "servers" &&
        servers.every((name) => m.servers.some((s) => s.name === name && s.enabled && s.state === "ready")) &&
        m.servers.every((s) => servers.includes(s.name) === s.enabled),
      0,
      30_000,
    );
    return socket;
  };
  /** One turn; the model requests it made. */
  const turn = async (socket: SessionClient, text: string): Promise<{ end: Message<"turn_end">; made: RecordedRequest[]; messages: unknown[] }> => {
    const before = (await requests(stack.llm.url, stack.llmKey)).length;
    const { end, messages } = await socket.turnEnd(socket.say(text), 30_000);
    return { end, made: (await requests(stack.llm.url, stack.llmKey)).slice(before), messages };
  };

  it("declares every tool, and no search, up to 50 tools", async () => {
    const socket = await session(["filesystem", "alpha"]);
    await script(stack.llm.url, stack.llmKey, [reply.text("ok")]);
    const { made } = await turn(socket, "hello");
    expect(declared(made[0])).toHaveLength(44);
    expect(declared(made[0])).not.toContain("search_tools");
    await socket.close();
  });

  it("with 490 tools declares the small servers and a search, and the model reaches a hidden tool through it", async () => {
    const socket = await session(["filesystem", "alpha", "beta", "ledger"]);
    await script(stack.llm.url, stack.llmKey, [
      reply.callReply("search_tools", { query: "ledger_archive_3" }),
      reply.callReply("ledger__ledger_archive_3", { id: "r-7" }),
      reply.text("Archived r-7."),
    ]);
    const { end, made, messages } = await turn(socket, "archive ledger record r-7 (kind 3)");
    expect(end.reason).toBe("complete");
    // One step more than with the tool declared: search, call, answer.
    expect(made).toHaveLength(3);
    const first = declared(made[0]);
    expect(byServer(first)).toEqual(["alpha", "filesystem", "search_tools"]);
    expect(first).toHaveLength(14 + 30 + 1);
    expect(JSON.stringify(made[0]?.body.systemInstruction)).not.toContain("alpha__");
    expect(JSON.stringify(made[0]?.body)).toContain("ledger (400)");
    // The search's answer names the tool, which is declared from the next request on.
    expect(JSON.stringify(made[1]?.body.contents)).toContain("ledger__ledger_archive_3");
    expect(declared(made[1])).toContain("ledger__ledger_archive_3");
    const result = messages.find(
      (m): m is Message<"status"> =>
        (m as Message<"status">).type === "status" && (m as Message<"status">).tool === "ledger_archive_3" && (m as Message<"status">).state === "complete",
    );
    expect(JSON.stringify(result?.result)).toContain('ledger_archive_3 done: {\\"id\\":\\"r-7\\"}');

    // The next turn still declares what the conversation found, without a new search.
    await script(stack.llm.url, stack.llmKey, [reply.text("ok")]);
    const next = await turn(socket, "thanks");
    expect(declared(next.made[0])).toContain("ledger__ledger_archive_3");
    await socket.close();
  });

  it("puts a server the conversation used before the smaller ones it would otherwise pick", async () => {
    const socket = await session(["filesystem", "alpha", "beta", "ledger"]);
    await script(stack.llm.url, stack.llmKey, [reply.callReply("beta__beta_lookup_0", { id: "b" }), reply.text("done")]);
    const first = await turn(socket, "look up beta b");
    // beta was not declared (alpha came first), yet the model named it exactly: it ran.
    expect(byServer(declared(first.made[0]))).toEqual(["alpha", "filesystem", "search_tools"]);
    expect(first.end.reason).toBe("complete");
    await script(stack.llm.url, stack.llmKey, [reply.text("ok")]);
    const second = await turn(socket, "again");
    expect(byServer(declared(second.made[0]))).toEqual(["beta", "filesystem", "search_tools"]);
    await socket.close();
  });
});
