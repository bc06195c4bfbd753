// Restarts and dropped connections, against the whole product: `wrangler dev`
// restarted between turns and mid-turn (the Durable Object comes back from its
// SQLite storage), and a browser socket dropped and reopened while a turn runs.
// Each test checks what the user sees, that the stored history is whole, and
// that the next turn works.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { startBadMcpServer, type BadMcpServer } from "../fixtures/bad-mcp-server";
import { hangsClosed, reply, requests, script } from "../fixtures/fake-llm-script";
import { startStack, type Stack } from "../fixtures/stack";
import type { Message, SessionClient } from "../fixtures/session-client";
import { openSession } from "../fixtures/session-client-node";
import { createSession, expectWholeHistory, functionName } from "../fixtures/session-http";
import { faultCase } from "./record";

let stack: Stack;
let bad: BadMcpServer;

beforeAll(async () => {
  bad = await startBadMcpServer("gate");
  stack = await startStack({ mcpServers: { bad: { type: "http", url: bad.url, alwaysAllow: ["tool"] } } });
});
afterAll(async () => {
  await stack?.stop();
  await bad?.stop();
});
beforeEach(async () => {
  await fetch(`${stack.llm.url}/__script/${encodeURIComponent(stack.llmKey)}`, { method: "DELETE" });
  bad.setMode("gate");
});

async function open(sessionId: string): Promise<SessionClient> {
  const socket = await openSession(stack.url, sessionId);
  onTestFinished(() => socket.close());
  return socket;
}

/** A plain turn: one text answer. */
async function textTurn(socket: SessionClient, answer: string): Promise<Message<"turn_end">> {
  await script(stack.llm.url, stack.llmKey, [reply.text(answer)]);
  const mark = socket.say("hello again");
  const { end } = await socket.turnEnd(mark);
  expect(socket.entries(mark).at(-1)?.text).toBe(answer);
  return end;
}

const timed = async (what: () => Promise<void>): Promise<number> => {
  const started = performance.now();
  await what();
  return Math.round(performance.now() - started);
};

describe("faults: restarts and reconnects", () => {
  it(
    "wrangler dev restarted between turns",
    faultCase(
      "wrangler dev restarted mid-session",
      "a turn, then stop and start wrangler dev (same port, same --persist-to), reconnect, next turn",
      async () => {
        const id = await createSession(stack.url);
        const first = await open(id);
        expect((await textTurn(first, "Before the restart.")).reason).toBe("complete");
        const before = await expectWholeHistory(stack.url, id, ["user", "assistant"]);

        const restartMs = await timed(() => stack.restartWorker());
        // The old socket learns it is gone (the page then reconnects with backoff).
        await first.closed;
        const second = await open(id);
        expect(second.history()).toEqual(before);
        expect((await textTurn(second, "After the restart.")).reason).toBe("complete");
        await expectWholeHistory(stack.url, id, ["user", "assistant", "user", "assistant"], [...second.history(), ...second.entries()]);
        return `restart took ${restartMs} ms; history replayed (2 entries), next turn ok, 4 entries`;
      },
    ),
  );

  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(
      `wrangler dev restarted mid-turn (${signal})`,
      faultCase(
        `wrangler dev ${signal === "SIGKILL" ? "killed" : "restarted"} mid-turn`,
        `${signal} to wrangler dev while the model streams, start it again; reconnect; next turn`,
        async () => {
          const id = await createSession(stack.url);
          const first = await open(id);
          // The model pauses mid-answer: its text is saved a second after the answer began, before the next delta goes out.
          await script(stack.llm.url, stack.llmKey, [reply.hangAfterPause(["Let me think about "], 2_000, ["it"])]);
          const mark = first.say("a long question");
          await first.next((m) => m.type === "text" && m.delta === "it", mark);
          await stack.restartWorker(signal);
          await first.closed;
          // The model request died with the old process.
          await hangsClosed(stack.llm.url, stack.llmKey);

          const second = await open(id);
          const history = second.history();
          // What the model had streamed stays, cut short (saved at most once a second), then the error.
          expect(history.map((e) => e.kind)).toEqual(["user", "assistant", "error"]);
          expect(history[1]).toMatchObject({ text: expect.stringMatching(/^Let me think about (it)?$/), partial: true });
          expect(history[2]?.text).toMatch(/interrupted/);
          expect(history[2]?.turnId).toBe(history[0]?.turnId);
          // No turn is left running: a new message is taken.
          expect((await textTurn(second, "Here is my answer.")).reason).toBe("complete");
          const entries = await expectWholeHistory(stack.url, id, ["user", "assistant", "error", "user", "assistant"], [...history, ...second.entries()]);
          // Reconnecting again replays the same history: the "interrupted" entry is written once.
          const third = await open(id);
          expect(third.history()).toEqual(entries);
          return `the partial answer kept (cut short) and "${history[2]?.text}" shown on reconnect; next turn ok; 5 entries, none duplicated`;
        },
      ),
    );
  }

  it(
    "wrangler dev killed while a tool call runs",
    faultCase(
      "wrangler dev killed mid-tool-call",
      "SIGKILL to wrangler dev while a remote tool call is pending, start it again; reconnect; next turn",
      async () => {
        const id = await createSession(stack.url);
        const first = await open(id);
        const fn = await functionName(stack.url, id, "bad.tool");
        await script(stack.llm.url, stack.llmKey, [reply.callReply(fn, { text: "never answered" })]);
        const calls = bad.received.filter((r) => r.method === "tools/call").length;
        first.say("use the tool");
        await bad.waitFor("tools/call", calls + 1);
        await stack.restartWorker("SIGKILL");
        await first.closed;

        const second = await open(id);
        const history = second.history();
        // The call that never finished is closed in the history too: a replay must not show it running for ever.
        expect.soft(history.map((e) => e.kind)).toEqual(["user", "assistant", "tool_call", "tool_result", "error"]);
        expect.soft(history.find((e) => e.kind === "tool_result")?.error ?? "(no tool_result)").toMatch(/interrupted/);
        expect(history.at(-1)?.text).toMatch(/interrupted/);

        const before = (await requests(stack.llm.url, stack.llmKey)).length;
        expect((await textTurn(second, "Starting over.")).reason).toBe("complete");
        // The model still gets an answer for the interrupted call (providers reject a call without one).
        const sent = JSON.stringify((await requests(stack.llm.url, stack.llmKey))[before]?.body.contents);
        expect(sent).toContain(`"functionResponse":{"name":"${fn}"`);
        await expectWholeHistory(
          stack.url,
          id,
          ["user", "assistant", "tool_call", "tool_result", "error", "user", "assistant"],
          [...history, ...second.entries()],
        );
        return `"${history.at(-1)?.text}" on reconnect; the pending call closed as interrupted; next turn ok`;
      },
    ),
  );

  for (const how of ["close", "drop"] as const) {
    const scenario = `Client ${how === "drop" ? "drops (network loss)" : "closes (reload)"} and reconnects mid-turn`;
    const done = `${how === "drop" ? "terminate the socket (no close frame)" : "close the socket cleanly"} while the turn streams (a tool call pending); reconnect`;
    it(
      `a client that ${how}s its socket during a streaming turn and reconnects`,
      faultCase(scenario, done, async () => {
        const id = await createSession(stack.url);
        const first = await open(id);
        const fn = await functionName(stack.url, id, "bad.tool");
        await script(stack.llm.url, stack.llmKey, [reply.text("Let me check. ", reply.call(fn, { text: "gated" })), reply.text("The tool said ok.")]);
        const calls = bad.received.filter((r) => r.method === "tools/call").length;
        const mark = first.say("check something");
        const start = await first.next((m): m is Message<"turn_start"> => m.type === "turn_start", mark);
        await first.next((m) => m.type === "text", mark);
        // The call is held by the server until release(): the turn is live while the socket goes.
        await bad.waitFor("tools/call", calls + 1);
        await (how === "drop" ? first.drop() : first.close());

        const second = await open(id);
        expect(second.history().map((e) => e.kind)).toEqual(["user", "assistant", "tool_call"]);
        expect(second.history()[1]?.text).toBe("Let me check. ");
        const busy = second.received.length;
        second.send({ type: "message", text: "are you there?" });
        const rejected = await second.next((m): m is Message<"error"> => m.type === "error", busy);
        expect(rejected.code).toBe("turn_in_progress");
        // Frames are ordered: whatever the session says on connecting came before that answer. It must
        // say a turn is running, or the page shows Send (and no Stop) while the turn goes on.
        const told = second.received.slice(0, second.received.indexOf(rejected)).find((m) => m.type === "turn_start");
        expect.soft(told, "turn_start for the running turn on the reconnected socket").toEqual({ type: "turn_start", turnId: start.turnId });

        bad.release();
        const { end, messages } = await second.turnEnd(busy);
        expect(end).toMatchObject({ turnId: start.turnId, reason: "complete" });
        const status = messages.find((m): m is Message<"status"> => m.type === "status" && m.state === "complete");
        expect(status?.result).toBe("ok: gated");
        expect(
          messages
            .filter((m) => m.type === "text")
            .map((m) => (m as Message<"text">).delta)
            .join(""),
        ).toBe("The tool said ok.");
        await expectWholeHistory(stack.url, id, ["user", "assistant", "tool_call", "tool_result", "assistant"], [...second.history(), ...second.entries()]);
        expect((await textTurn(second, "Next turn.")).reason).toBe("complete");
        return `reconnected mid-turn: history so far (3 entries), then the rest live; turn complete; 5 entries, none lost or doubled; next turn ok`;
      }),
    );
  }
});
