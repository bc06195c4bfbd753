// A server's URL-mode question on the session's side (src/session/mcp/url-elicitation.ts
// with the real Approvals): what the pages are sent and when, what is refused, and that a
// log line never holds more of the URL than its host.
import { ProtocolError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { Approvals } from "../../src/approval/approvals";
import type { ServerMessage } from "../../src/protocol/messages";
import { askUrl, urlRequired } from "../../src/session/mcp/url-elicitation";
import { createJsonLogger } from "../../src/shared/logger";

const URL_ASKED = "https://auth.example.com/connect/step?state=s3cret-state&code=k3y";

function setup() {
  const sent: ServerMessage[] = [];
  const lines: string[] = [];
  const settings = new Map<string, unknown>();
  const store = {
    getSetting: <T>(key: string) => settings.get(key) as T | undefined,
    setSetting: (key: string, value: unknown) => void settings.set(key, value),
  };
  const approvals = new Approvals({ required: true, alwaysAllow: () => [], store, broadcast: (m) => sent.push(m) });
  return { sent, lines, approvals, logger: createJsonLogger({ level: "debug", write: (line) => lines.push(line) }) };
}

/** Resolves with the question once it was broadcast. */
async function question(sent: ServerMessage[]) {
  await expect.poll(() => sent.some((m) => m.type === "elicitation_request")).toBe(true);
  return sent.find((m): m is Extract<ServerMessage, { type: "elicitation_request" }> => m.type === "elicitation_request") as Extract<
    ServerMessage,
    { type: "elicitation_request" }
  >;
}

describe("URL-mode questions", () => {
  it("asks with the host, takes accept without content, waits, and ends at the server's completion", async () => {
    const { sent, lines, approvals, logger } = setup();
    const answer = askUrl(approvals, "linker", { message: "Sign in.", url: URL_ASKED, elicitationId: "el-1" }, new AbortController().signal, logger);
    const asked = await question(sent);
    expect(asked).toEqual({
      type: "elicitation_request",
      requestId: asked.requestId,
      server: "linker",
      message: "Sign in.",
      mode: "url",
      url: URL_ASKED,
      host: "auth.example.com",
    });
    // A page that sends content with its accept: the server gets the action only.
    expect(approvals.answer({ type: "elicitation_response", requestId: asked.requestId, action: "accept", content: { leak: "x" } })).toEqual({ ok: true });
    expect(await answer).toEqual({ action: "accept" });
    expect(sent.at(-1)).toEqual({ type: "elicitation_waiting", requestId: asked.requestId });
    expect(approvals.pending()).toEqual([asked, { type: "elicitation_waiting", requestId: asked.requestId }]);
    // Another server's completion, or another id, ends nothing.
    approvals.urlWaits.complete("other", "el-1");
    approvals.urlWaits.complete("linker", "el-2");
    expect(sent.filter((m) => m.type === "elicitation_resolved")).toEqual([]);
    approvals.urlWaits.complete("linker", "el-1");
    expect(sent.at(-1)).toEqual({ type: "elicitation_resolved", requestId: asked.requestId });
    expect(approvals.pending()).toEqual([]);
    expect(lines.join("\n")).toContain("auth.example.com");
    expect(lines.join("\n")).not.toMatch(/s3cret|k3y|connect\/step/);
  });

  it("ends a wait when a call to its server ends, or the server asks again (a 2026 round)", async () => {
    const { sent, approvals } = setup();
    const first = askUrl(approvals, "linker", { message: "Sign in.", url: URL_ASKED }, new AbortController().signal);
    const asked = await question(sent);
    approvals.answer({ type: "elicitation_response", requestId: asked.requestId, action: "accept" });
    await first;
    sent.length = 0;
    void askUrl(approvals, "linker", { message: "Still there?", url: URL_ASKED }, new AbortController().signal);
    expect(sent[0]).toEqual({ type: "elicitation_resolved", requestId: asked.requestId });
    const again = await question(sent);
    approvals.answer({ type: "elicitation_response", requestId: again.requestId, action: "accept" });
    await expect.poll(() => sent.at(-1)).toEqual({ type: "elicitation_waiting", requestId: again.requestId });
    approvals.urlWaits.settled("linker");
    expect(sent.at(-1)).toEqual({ type: "elicitation_resolved", requestId: again.requestId });
  });

  it.each([
    ["javascript:alert(1)", "only http and https URLs are opened, not javascript:"],
    ["ftp://files.example.com/x", "only http and https URLs are opened, not ftp:"],
    ["https://bank.example.com@evil.example/", "a URL with a user name or password is not opened"],
    ["not a url", "it is not a URL"],
  ])("refuses %s with a typed error, asking nobody and logging none of it", async (url, reason) => {
    const { sent, lines, approvals, logger } = setup();
    let refusal: unknown;
    try {
      await askUrl(approvals, "linker", { message: "Open this.", url }, new AbortController().signal, logger);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ProtocolError);
    expect(refusal).toMatchObject({ code: -32602, data: { code: "elicitation_url_refused" } });
    expect((refusal as Error).message).toContain(`URL elicitation refused: ${reason}`);
    expect(sent).toEqual([]);
    expect(lines.join("\n")).not.toMatch(/alert|files\.example|evil|bank/);
  });

  it("-32042: true once agreed and complete; a decline says so for the model", async () => {
    const { sent, approvals } = setup();
    const elicitations = [{ mode: "url" as const, elicitationId: "gate-1", url: URL_ASKED, message: "Sign in at the gate." }];
    const declined = urlRequired(approvals, { server: "gate", elicitations });
    approvals.answer({ type: "elicitation_response", requestId: (await question(sent)).requestId, action: "decline" });
    expect(await declined).toBe("the person declined to open auth.example.com");

    sent.length = 0;
    const agreed = urlRequired(approvals, { server: "gate", elicitations });
    approvals.answer({ type: "elicitation_response", requestId: (await question(sent)).requestId, action: "accept" });
    await expect.poll(() => sent.at(-1)?.type).toBe("elicitation_waiting");
    // Another call to the server ending is not this call's completion: it would be sent again too soon.
    approvals.urlWaits.settled("gate");
    expect(sent.at(-1)?.type).toBe("elicitation_waiting");
    approvals.urlWaits.complete("gate", "gate-1");
    expect(await agreed).toBe(true);

    sent.length = 0;
    const stop = new AbortController();
    const stopped = urlRequired(approvals, { server: "gate", elicitations, signal: stop.signal });
    approvals.answer({ type: "elicitation_response", requestId: (await question(sent)).requestId, action: "accept" });
    await expect.poll(() => sent.at(-1)?.type).toBe("elicitation_waiting");
    stop.abort();
    expect(await stopped).toBe("the person did not finish at auth.example.com");
    expect(sent.at(-1)?.type).toBe("elicitation_resolved");

    // A server need not say it is complete: the person's "I'm done" (accept again) ends the wait; anything else gives up.
    for (const [action, outcome] of [
      ["accept", true],
      ["cancel", "the person did not finish at auth.example.com"],
    ] as const) {
      sent.length = 0;
      const manual = urlRequired(approvals, { server: "gate", elicitations });
      const requestId = (await question(sent)).requestId;
      approvals.answer({ type: "elicitation_response", requestId, action: "accept" });
      await expect.poll(() => sent.at(-1)?.type).toBe("elicitation_waiting");
      expect(approvals.answer({ type: "elicitation_response", requestId, action })).toEqual({ ok: true });
      expect(await manual).toBe(outcome);
      expect(sent.at(-1)).toEqual({ type: "elicitation_resolved", requestId });
      expect(approvals.answer({ type: "elicitation_response", requestId, action: "accept" })).toMatchObject({ ok: false, code: "unknown_elicitation" });
    }
  });
});
