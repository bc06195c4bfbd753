// Images from a tool reach the model: the real ChatSession, the real bridge with
// server-everything (whose get-tiny-image returns a 20×20 PNG) and the fake Gemini
// recording what it is sent. Then the budget, on the orchestrator alone: a part too
// large for it becomes a note for the model and the page gets nothing of it.
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ChatMessage, LlmEvent, LlmProvider, LlmRequest } from "../../../src/llm/provider";
import { MediaBudget, reduceToolResult } from "../../../src/orchestrator/tool-results";
import type { ToolStatus, TurnEntry } from "../../../src/orchestrator/transcript";
import { runTurn } from "../../../src/orchestrator/turn";
import type { ServerMessage } from "../../../src/protocol/messages";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

type Status = Extract<ServerMessage, { type: "status" }>;
const isStatus =
  (state: Status["state"]) =>
  (m: ServerMessage): m is Status =>
    m.type === "status" && m.state === state;

/** PNG signature, then an IHDR of 20×20: the start of server-everything's tiny MCP logo in base64. */
const TINY_PNG_START = "iVBORw0KGgoAAAANSUhEUgAAABQAAAAU";
const NOTE = "[image 1 (image/png) went to the model with this result; media are not kept in the history]";

async function approvedTurn(socket: SessionClient, text: string, tool: string) {
  const from = socket.say(text);
  const request = await socket.next((m) => m.type === "approval_request" && m.tool === tool, from);
  socket.send({ type: "approval", callId: request.type === "approval_request" ? request.callId : "", approved: true });
  return socket.turnEnd(from);
}

describe("media in tool results, through a session", () => {
  it("sends the tool's PNG to Gemini as inlineData after the function response, and to the page with the status", async () => {
    await script(llm, KEY, [
      reply.callReply("everything__get-tiny-image", {}, { id: "img-1" }),
      reply.text("It is the MCP logo."),
      reply.text("No image now."),
    ]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    const { end, messages } = await approvedTurn(socket, "show me the tiny image", "get-tiny-image");
    expect(end.reason).toBe("complete");

    // The page: the status frame carries the image itself...
    const complete = messages.find(isStatus("complete"));
    expect(complete?.media).toEqual([{ type: "image", mimeType: "image/png", data: expect.stringMatching(new RegExp(`^${TINY_PNG_START}`)) }]);
    const png = complete?.media?.[0]?.data as string;
    const resultText = "Here's the image you requested:\n[image 1: image/png, 3.9 KB]\nThe image above is the MCP logo.";
    expect(complete?.result).toBe(`${resultText}\n${NOTE}`);

    // ...and the second model request has the response, then the image in a user content of its own.
    const [, second] = await requests(llm, KEY);
    const contents = second?.body.contents as unknown[];
    expect(contents.slice(-2)).toEqual([
      { role: "user", parts: [{ functionResponse: { id: "img-1", name: "everything__get-tiny-image", response: { result: resultText } } }] },
      {
        role: "user",
        parts: [
          { text: "Media from everything__get-tiny-image (call img-1): image 1 (image/png), attached in this order." },
          { inlineData: { mimeType: "image/png", data: png } },
        ],
      },
    ]);

    // The history keeps the note, not the image: not in the entry, the replay, the route or the next turn's request.
    const entry = messages.find((m) => m.type === "entry" && m.entry.kind === "tool_result");
    expect(entry).toMatchObject({ entry: { callId: expect.not.stringMatching(/^img-1$/), result: `${resultText}\n${NOTE}` } });
    const next = await socket.turnEnd(socket.say("and now?"));
    expect(next.end.reason).toBe("complete");
    const third = JSON.stringify((await requests(llm, KEY))[2]?.body.contents);
    expect(third).toContain("media are not kept in the history");
    const history = await (await workerFetch(`/sessions/${id}/history`)).text();
    for (const seen of [JSON.stringify(messages.filter((m) => m.type !== "status")), third, history]) {
      expect(seen).not.toContain(TINY_PNG_START);
      expect(seen).not.toContain("inlineData");
    }
    socket.close();
  });

  it("passes resource links and an embedded resource's text on as text lines", async () => {
    await script(llm, KEY, [
      reply.text(
        reply.call("everything__get-resource-links", { count: 2 }, { id: "links-1" }),
        reply.call("everything__get-resource-reference", { resourceType: "Blob", resourceId: 1 }, { id: "ref-1" }),
      ),
      reply.text("Read them."),
    ]);
    const socket = await openSession(crypto.randomUUID());
    const from = socket.say("links please");
    for (const tool of ["get-resource-links", "get-resource-reference"]) {
      const request = await socket.next((m) => m.type === "approval_request" && m.tool === tool, from);
      socket.send({ type: "approval", callId: request.type === "approval_request" ? request.callId : "", approved: true });
    }
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(messages.filter(isStatus("complete")).map((m) => m.media)).toEqual([undefined, undefined]);
    const responses =
      ((await requests(llm, KEY))[1]?.body.contents as { parts: { functionResponse?: { id: string; response: { result: string } } }[] }[] | undefined)?.at(-1)
        ?.parts ?? [];
    const result = (id: string) => responses.find((p) => p.functionResponse?.id === id)?.functionResponse?.response.result;
    expect(result("links-1")).toBe(
      "Here are 2 resource links to resources available in this server:\n" +
        'Resource link "Blob Resource 1": demo://resource/dynamic/blob/1\nResource link "Text Resource 2": demo://resource/dynamic/text/2',
    );
    // A text/plain blob is decoded for the model.
    expect(result("ref-1")).toMatch(
      /^Returning resource reference for Resource 1:\nResource 1: This is a base64 blob created at .+\nYou can access this resource using the URI: demo:\/\/resource\/dynamic\/blob\/1$/,
    );
    socket.close();
  });
});

/** Each model request's messages; answers with a call to `shot` first, then text. */
function recordingProvider(): { provider: LlmProvider; seen: ChatMessage[][] } {
  const seen: ChatMessage[][] = [];
  const provider: LlmProvider = {
    name: "gemini",
    model: "stub",
    async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
      seen.push(structuredClone(request.messages));
      if (seen.length === 1) yield { type: "tool_call", call: { id: "c1", name: "cam__shot", arguments: {} } };
      else yield { type: "text", delta: "seen" };
      yield { type: "done", finishReason: "STOP" };
    },
  };
  return { provider, seen };
}

const image = (size: number): CallToolResult["content"][number] => ({ type: "image", mimeType: "image/png", data: "A".repeat(size) });

describe("the media budget", () => {
  it("turns a part over 2 MB into a note: the model and the page get the rest, never the oversized part", async () => {
    const { provider, seen } = recordingProvider();
    const statuses: ToolStatus[] = [];
    const entries: TurnEntry[] = [];
    const result: CallToolResult = { content: [{ type: "text", text: "two shots" }, image(3 * 1024 * 1024), image(8)] };
    const outcome = await runTurn({
      turnId: "t1",
      provider,
      host: { callTool: async () => result },
      tools: () => [{ server: "cam", name: "shot", qualifiedName: "cam__shot", functionName: "cam__shot", inputSchema: { type: "object" } }],
      guides: [],
      history: [{ kind: "user", text: "shoot" }],
      port: {
        record: (e) => entries.push(e),
        text: () => undefined,
        status: (s) => statuses.push(s),
        approve: async () => ({ allowed: true, how: "policy_off" }),
      },
      signal: new AbortController().signal,
      limits: { maxSteps: 4, tokenBudget: 10_000, toolResultChars: 20_000 },
    });
    expect(outcome.reason).toBe("complete");
    const text = "two shots\n[image/png image left out: 3 MB of base64, over the 2 MB one media part may have]\n[image 1: image/png, 6 B]";
    expect(seen[1]?.at(-1)).toEqual({
      role: "tool",
      results: [{ id: "t1.0.0", name: "cam__shot", result: text, media: [{ type: "image", mimeType: "image/png", data: "AAAAAAAA" }] }],
    });
    expect(statuses.find((s) => s.state === "complete")).toMatchObject({
      result: `${text}\n${NOTE}`,
      media: [{ type: "image", mimeType: "image/png", data: "AAAAAAAA" }],
    });
    expect(entries.find((e) => e.kind === "tool_result")).toEqual({
      kind: "tool_result",
      callId: "t1.0.0",
      server: "cam",
      tool: "shot",
      durationMs: expect.any(Number),
      result: `${text}\n${NOTE}`,
    });
  });

  it("shares one budget among the results of a turn: what no longer fits becomes a note", () => {
    const budget = new MediaBudget(100, 60);
    const first = reduceToolResult({ content: [image(60)] }, 1000, budget);
    const second = reduceToolResult({ content: [image(30), image(20), { type: "audio", mimeType: "audio/wav", data: "UklG" }] }, 1000, budget);
    expect(first.media).toHaveLength(1);
    expect(second.media.map((m) => m.type)).toEqual(["image", "audio"]);
    expect(second.value).toBe(
      [
        "[image 1: image/png, 22 B]",
        "[image/png image left out: 20 B of base64, more than the 10 B left of this turn's 100 B media budget]",
        "[audio 1: audio/wav, 3 B]",
      ].join("\n"),
    );
    expect(second.recorded).toBe(
      `${second.value}\n[image 1 (image/png), audio 1 (audio/wav) went to the model with this result; media are not kept in the history]`,
    );
  });

  it("keeps structured content as JSON, and adds it to the text when media come with it", () => {
    const budget = new MediaBudget();
    expect(reduceToolResult({ content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } }, 1000, budget).value).toEqual({ n: 1 });
    const withImage = reduceToolResult({ content: [image(8)], structuredContent: { n: 2 } }, 1000, budget);
    expect(withImage.value).toBe('[image 1: image/png, 6 B]\n{"n":2}');
    const blob = reduceToolResult({ content: [{ type: "resource", resource: { uri: "demo://z", mimeType: "application/gzip", blob: "H4sI" } }] }, 1000, budget);
    expect(blob).toEqual({
      value: "[resource demo://z: application/gzip, 3 B, not readable as text]",
      media: [],
      recorded: "[resource demo://z: application/gzip, 3 B, not readable as text]",
    });
  });
});
