// Faults on the MCP side, against the whole product (fake Gemini, the real bridge,
// `wrangler dev`): a stdio server killed mid-call, the bridge killed mid-turn and
// restarted, and a remote server that answers garbage, 500, nothing, or drops its
// SSE stream. Each test checks what the user sees (WS messages), that the stored
// history is whole, and that the next turn works.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import type { HistoryEntry, ServerMessage } from "../../src/protocol/messages";
import { startBadMcpServer, type BadMcpServer, type BadMode } from "../fixtures/bad-mcp-server";
import { reply, script } from "../fixtures/fake-llm-script";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import type { Message, SessionClient } from "../fixtures/session-client";
import { openSession } from "../fixtures/session-client-node";
import { createSession, expectWholeHistory, functionName } from "../fixtures/session-http";
import { expectWithin, faultCase } from "./record";

const LONG_OP = "everything.trigger-long-running-operation";
const isStatus =
  (state: Message<"status">["state"]) =>
  (m: ServerMessage): m is Message<"status"> =>
    m.type === "status" && m.state === state;
const TOOL_TURN: HistoryEntry["kind"][] = ["user", "assistant", "tool_call", "tool_result", "assistant"];

let stack: Stack;
let bad: BadMcpServer;

beforeAll(async () => {
  bad = await startBadMcpServer();
  stack = await startStack({
    mcpServers: {
      // A timeout well below the 60 s default bounds how long a lost answer can keep a test waiting.
      everything: { command: process.execPath, args: [everythingBin, "stdio"], timeout: 8, alwaysAllow: ["trigger-long-running-operation"] },
      bad: { type: "http", url: bad.url, timeout: 2, alwaysAllow: ["tool"] },
    },
  });
});
afterAll(async () => {
  await stack?.stop();
  await bad?.stop();
});
beforeEach(async () => {
  // What an earlier failed test left queued must not answer this one.
  await fetch(`${stack.llm.url}/__script/${encodeURIComponent(stack.llmKey)}`, { method: "DELETE" });
  bad.setMode("ok");
});

async function newSession(): Promise<SessionClient> {
  const socket = await openSession(stack.url, await createSession(stack.url));
  onTestFinished(() => socket.close());
  return socket;
}

/** One turn where the model calls `fn` with `args`, then answers `after`; resolves at turn_end with the tool's final status. */
async function toolTurn(socket: SessionClient, fn: string, args: Record<string, unknown>, after: string, during?: (mark: number) => Promise<void>) {
  await script(stack.llm.url, stack.llmKey, [reply.callReply(fn, args), reply.text(after)]);
  const mark = socket.say(`please use ${fn}`);
  await during?.(mark);
  const status = await socket.next((m): m is Message<"status"> => m.type === "status" && (m.state === "complete" || m.state === "error"), mark, 25_000);
  const { end, messages } = await socket.turnEnd(mark, 25_000);
  return { status, end, messages, mark };
}

/** The next turn works: a filesystem call and an answer. */
async function nextTurnWorks(socket: SessionClient): Promise<void> {
  const fn = await functionName(stack.url, socket.sessionId, "filesystem.list_directory");
  const { status, end } = await toolTurn(socket, fn, { path: stack.fsRoot }, "You have notes.txt.");
  expect(status.state).toBe("complete");
  expect(JSON.stringify(status.result)).toContain("notes.txt");
  expect(end.reason).toBe("complete");
}

describe("faults: MCP servers", () => {
  it(
    "a stdio server killed (SIGKILL) mid-call",
    faultCase("MCP child killed mid-call", "kill -9 the server's pid (bridge /health) while a long call reports progress", async () => {
      const socket = await newSession();
      const fn = await functionName(stack.url, socket.sessionId, LONG_OP);
      let killedAt = 0;
      const { status, end, messages } = await toolTurn(socket, fn, { duration: 30, steps: 60 }, "The operation failed.", async (mark) => {
        await socket.next(isStatus("progress"), mark);
        const pid = (await stack.bridge.health()).servers.everything?.pid;
        expect(pid).toBeGreaterThan(0);
        killedAt = performance.now();
        process.kill(pid ?? 0, "SIGKILL");
      });
      const failMs = Math.round(performance.now() - killedAt);
      expect(status.state).toBe("error");
      expect(status.error).toMatch(/everything/);
      // The bridge's own words ("crashed (killed by SIGKILL) while handling this request"), not a guess.
      expect.soft(status.error).toMatch(/crash|killed/i);
      expect(end.reason).toBe("complete");
      expect(messages.some((m) => m.type === "error")).toBe(false);

      // The next turn: the bridge starts the server again and the same tool runs to the end.
      const again = await toolTurn(socket, fn, { duration: 0.2, steps: 1 }, "Done.");
      expect(again.status.state).toBe("complete");
      expect(String(again.status.result)).toContain("Long running operation completed");
      expect(again.end.reason).toBe("complete");
      const entries = await expectWholeHistory(stack.url, socket.sessionId, [...TOOL_TURN, ...TOOL_TURN], socket.entries());
      expect(entries[3]?.error).toBe(status.error);
      const restarts = (await stack.bridge.health()).servers.everything?.restarts;
      return `tool error after ${failMs} ms ("${status.error?.slice(0, 60)}…"), turn complete, 10 history entries, server restarted (${restarts}), next call ok`;
    }),
  );

  it(
    "the bridge killed mid-turn and restarted",
    faultCase("Bridge killed mid-turn, restarted", "SIGKILL the bridge while a long call through it reports progress; restart it; next turn", async () => {
      const socket = await newSession();
      onTestFinished(async () => {
        // Later tests need the bridge, whatever happened here.
        if (stack.bridge.process.exitCode !== null || stack.bridge.process.signalCode !== null) await stack.restartBridge();
      });
      const fn = await functionName(stack.url, socket.sessionId, LONG_OP);
      let killedAt = 0;
      const { status, end } = await toolTurn(socket, fn, { duration: 30, steps: 60 }, "The bridge went away.", async (mark) => {
        await socket.next(isStatus("progress"), mark);
        killedAt = performance.now();
        await stack.killBridge();
      });
      const failMs = Math.round(performance.now() - killedAt);
      expect(status.state).toBe("error");
      // A lost connection is reported as such (ServerUnavailableError), not as the server's timeout (8 s here) firing later.
      expect.soft(status.error).toMatch(/^MCP server "everything" is unavailable: /);
      expectWithin(failMs, 4_000, "tool error after the bridge was killed");
      expect(end.reason).toBe("complete");
      await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "everything" && s.state === "unavailable"));

      const restartedFrom = socket.received.length;
      await stack.restartBridge();
      // The open page learns the servers are back without sending anything (a background retry). Both
      // are behind the bridge and come back one after the other; the next turn calls the filesystem's.
      const back = (name: string) => (m: ServerMessage) => m.type === "servers" && m.servers.some((s) => s.name === name && s.state === "ready");
      await socket.next(back("everything"), restartedFrom);
      await socket.next(back("filesystem"), restartedFrom);
      await nextTurnWorks(socket);
      await expectWholeHistory(stack.url, socket.sessionId, [...TOOL_TURN, ...TOOL_TURN], socket.entries());
      return `tool error after ${failMs} ms ("${status.error?.slice(0, 70)}"), turn complete; after restart the page saw the server ready with no message sent, and the next turn ran filesystem.list_directory; 10 history entries`;
    }),
  );

  // What the host reports (src/mcp/call.ts translateError → src/mcp/errors.ts), as the user reads it in the tool's status.
  const remote: { mode: BadMode; what: string; error: RegExp }[] = [
    // ProtocolError: the answer's body did not parse.
    { mode: "malformed", what: "answers tools/call with malformed JSON", error: /^bad: Unterminated string in JSON at position \d+/ },
    // ProtocolError carrying the SDK's SdkHttpError for a non-2xx POST, with the server's body.
    { mode: "http500", what: "answers tools/call with HTTP 500", error: /^bad: the server answered HTTP 500$/ },
    // ToolTimeoutError after the server's `timeout` (2 s).
    { mode: "hang", what: "never answers tools/call (timeout 2 s)", error: /^bad\.tool did not answer within 2000 ms$/ },
    // ServerUnavailableError: the broken response stream closes the connection (connection.ts), failing the call at once.
    { mode: "sse-drop", what: "drops its SSE stream mid-answer", error: /^MCP server "bad" is unavailable: the connection closed during the request$/ },
  ];
  for (const { mode, what, error } of remote) {
    it(
      `a remote server that ${what}`,
      faultCase(`Remote MCP server: ${mode}`, `"type": "http" server ${what}; next turn with the server healthy`, async () => {
        const socket = await newSession();
        const fn = await functionName(stack.url, socket.sessionId, "bad.tool");
        bad.setMode(mode);
        const calls = bad.received.filter((r) => r.method === "tools/call").length;
        const { status, end, messages } = await toolTurn(socket, fn, { text: "x" }, "The tool failed.");
        const call = await bad.waitFor("tools/call", calls + 1);
        expect(status.state).toBe("error");
        expect.soft(status.error).toMatch(error);
        expect(status.durationMs).toBeDefined();
        const ms = status.durationMs ?? 0;
        if (mode === "hang") {
          // Not given up before its timeout; how soon after it is a figure.
          expect(ms).toBeGreaterThanOrEqual(1_900);
          expectWithin(ms, 4_000, "timeout error");
          // The host gave up on the request and told the server so.
          const cancel = await bad.waitFor("notifications/cancelled").catch(() => undefined);
          expect.soft(cancel?.params?.requestId, "notifications/cancelled for the timed-out call").toBe(call.id);
        } else {
          // A broken answer is its own error (matched above), not the timeout firing later.
          expectWithin(ms, 1_500, "tool error");
        }
        expect(end.reason).toBe("complete");
        expect(messages.some((m) => m.type === "error")).toBe(false);

        bad.setMode("ok");
        const again = await toolTurn(socket, fn, { text: "y" }, "It worked.");
        expect(again.status.state, again.status.error).toBe("complete");
        expect(again.status.result).toBe("ok: y");
        await expectWholeHistory(stack.url, socket.sessionId, [...TOOL_TURN, ...TOOL_TURN], socket.entries());
        return `tool error in ${Math.round(ms)} ms ("${status.error?.slice(0, 70)}"), turn complete, 10 history entries, next call ok`;
      }),
    );
  }
});
