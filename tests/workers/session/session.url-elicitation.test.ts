// A server's URL-mode question in real workerd with the real ChatSession (issue 34): dave's
// own server (tests/fixtures/url-elicitation-server.mjs) asks him to open a page of its own,
// on MCP 2026-07-28 (input_required, then the retry) and on 2025-11-25 (elicitation/create,
// then notifications/elicitation/complete). The question reaches only the owner's sockets,
// with the server, the message, the URL and its host; bob cannot answer it; after "accept"
// every socket of the owner (and one that connects then) hears that the server is awaited,
// until the server finished and the call goes on. A URL that is not http(s) never reaches
// the page: the Worker refuses it with a typed error. A call refused with -32042 (2025) asks
// the same question, and is sent once more after the server said the URL is complete.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import type { StoredUserServer } from "../../../src/users/user-servers";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type SessionClient } from "../../fixtures/session-client";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const base = inject("urlElicitationBase");
const bindings = env as unknown as Env;

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

/** dave's own server `name` at `url` (its tool needs no approval) for the length of `body`. */
async function withOwnServer(name: string, url: string, body: () => Promise<void>): Promise<void> {
  const account = userAccount(bindings, "token:dave");
  const server: StoredUserServer = { name, url, type: "http", headers: {}, alwaysAllow: ["connect", "gated"], excludeTools: [], disabled: false };
  expect(await account.putServer(server, true)).toEqual({ ok: true });
  try {
    await body();
  } finally {
    await account.deleteServer(name);
  }
}

async function sessionWith(id: string, server: string): Promise<SessionClient> {
  const socket = await openSession(id, "dave");
  socket.send({ type: "set_servers", enabled: [server] });
  return socket;
}

const completed = (messages: { type: string }[]) =>
  JSON.stringify(messages.filter((m) => m.type === "status" && (m as { state?: string }).state !== "processing"));

describe("URL-mode elicitation in the session", () => {
  it.each([
    ["2026-07-28", "/mcp", "link26"],
    ["2025-11-25", "/legacy", "link25"],
  ])("%s: asks only the owner, shows the host, and waits for the server after accept", async (_era, path, name) => {
    await withOwnServer(name, `${base}${path}`, async () => {
      await script(llm, KEY, [reply.callReply(`${name}__connect`, {}, { id: `${name}-1` }), reply.text("Connected.")]);
      const id = crypto.randomUUID();
      const socket = await sessionWith(id, name);
      const other = await openSession(id, "dave");
      const from = socket.received.length;
      const otherFrom = other.received.length;
      socket.send({ type: "message", text: "connect my account" });
      const request = await socket.next(frameOf("elicitation_request"), from);
      expect(request).toEqual({
        type: "elicitation_request",
        requestId: expect.any(String),
        server: name,
        message: "Connect your account to go on.",
        mode: "url",
        url: `${base}/connect?state=s3cret-state`,
        host: new URL(base).host,
      });
      // Every socket of the owner is asked; bob cannot open the session, and his own session cannot answer it.
      expect(await other.next(frameOf("elicitation_request"), otherFrom)).toEqual(request);
      await expect(openSession(id, "bob")).rejects.toThrow();
      const bob = await openSession(crypto.randomUUID(), "bob");
      const bobFrom = bob.received.length;
      bob.send({ type: "elicitation_response", requestId: request.requestId, action: "accept" });
      expect(await bob.next(frameOf("error"), bobFrom)).toMatchObject({ code: "unknown_elicitation" });
      bob.close();

      // The owner agrees to go: every socket hears the server is awaited, and the call waits for it.
      socket.send({ type: "elicitation_response", requestId: request.requestId, action: "accept" });
      const waiting = { type: "elicitation_waiting", requestId: request.requestId };
      expect(await socket.next(frameOf("elicitation_waiting"), from)).toEqual(waiting);
      expect(await other.next(frameOf("elicitation_waiting"), otherFrom)).toEqual(waiting);
      // A page that opens now sees the question and that it is awaited.
      const late = await openSession(id, "dave");
      expect(await late.next(frameOf("elicitation_waiting"), 0)).toEqual(waiting);
      expect(late.received.filter(frameOf("elicitation_request"))).toEqual([request]);
      expect(socket.received.slice(from).some((m) => m.type === "turn_end" || m.type === "elicitation_resolved")).toBe(false);

      const done = await fetch(`${base}/complete`, { method: "POST" });
      expect(done.status).toBe(204);
      const { end, messages } = await socket.turnEnd(from);
      expect(end.reason).toBe("complete");
      expect(messages).toContainEqual({ type: "elicitation_resolved", requestId: request.requestId });
      expect(completed(messages)).toContain('"complete"');
      expect(completed(messages)).toContain("connected");
      expect(await late.next(frameOf("elicitation_resolved"), 0)).toEqual({ type: "elicitation_resolved", requestId: request.requestId });
      // The 2026 round's requestState went back to the server unchanged (it answered) and never to a page.
      for (const client of [socket, other, late]) expect(JSON.stringify(client.received)).not.toContain("rs1.b3BhcXVl");
      late.close();
      other.close();
      socket.close();
    });
  });

  it("2025-11-25: a call refused with -32042 asks the owner, waits for the completion notification, and is sent once more", async () => {
    await withOwnServer("gate25", `${base}/legacy`, async () => {
      await script(llm, KEY, [reply.callReply("gate25__gated", {}, { id: "gate-1" }), reply.text("Through the gate.")]);
      const socket = await sessionWith(crypto.randomUUID(), "gate25");
      const from = socket.received.length;
      socket.send({ type: "message", text: "open the gate" });
      const request = await socket.next(frameOf("elicitation_request"), from);
      expect(request).toMatchObject({ server: "gate25", message: "Sign in at the gate first.", mode: "url", host: new URL(base).host });
      socket.send({ type: "elicitation_response", requestId: request.requestId, action: "accept" });
      await socket.next(frameOf("elicitation_waiting"), from);
      const done = await fetch(`${base}/complete-gate`, { method: "POST" });
      expect(done.status).toBe(204);
      const { end, messages } = await socket.turnEnd(from);
      expect(end.reason).toBe("complete");
      expect(messages).toContainEqual({ type: "elicitation_resolved", requestId: request.requestId });
      expect(completed(messages)).toContain("the gate is open");
      socket.close();
    });
  });

  it("2025-11-25: a -32042 whose server never says it is complete goes on when the owner says they are done", async () => {
    await withOwnServer("gate25q", `${base}/legacy`, async () => {
      await script(llm, KEY, [reply.callReply("gate25q__gated", {}, { id: "gate-3" }), reply.text("Through the quiet gate.")]);
      const socket = await sessionWith(crypto.randomUUID(), "gate25q");
      const from = socket.received.length;
      socket.send({ type: "message", text: "open the gate" });
      const request = await socket.next(frameOf("elicitation_request"), from);
      socket.send({ type: "elicitation_response", requestId: request.requestId, action: "accept" });
      await socket.next(frameOf("elicitation_waiting"), from);
      const opened = await fetch(`${base}/open-gate-quietly`, { method: "POST" });
      expect(opened.status).toBe(204);
      // "I'm done": accept again on the waiting question.
      socket.send({ type: "elicitation_response", requestId: request.requestId, action: "accept" });
      const { end, messages } = await socket.turnEnd(from);
      expect(end.reason).toBe("complete");
      expect(messages).toContainEqual({ type: "elicitation_resolved", requestId: request.requestId });
      expect(completed(messages)).toContain("the gate is open");
      socket.close();
    });
  });

  it("2025-11-25: a -32042 the owner declines fails the call, saying so, without a retry", async () => {
    await withOwnServer("gate25b", `${base}/legacy`, async () => {
      await script(llm, KEY, [reply.callReply("gate25b__gated", {}, { id: "gate-2" }), reply.text("Gate stays shut.")]);
      const socket = await sessionWith(crypto.randomUUID(), "gate25b");
      const from = socket.received.length;
      socket.send({ type: "message", text: "open the gate" });
      const request = await socket.next(frameOf("elicitation_request"), from);
      socket.send({ type: "elicitation_response", requestId: request.requestId, action: "decline" });
      const { end, messages } = await socket.turnEnd(from);
      expect(end.reason).toBe("complete");
      expect(messages.filter((m) => m.type === "elicitation_request")).toHaveLength(1);
      expect(completed(messages)).toContain(`gate25b: the person declined to open ${new URL(base).host}`);
      socket.close();
    });
  });

  it.each([
    ["2026-07-28", "/mcp", "bad26"],
    ["2025-11-25", "/legacy", "bad25"],
  ])("%s: refuses a URL that is not http(s) with a typed error; the page never sees it", async (_era, path, name) => {
    await withOwnServer(name, `${base}${path}`, async () => {
      await script(llm, KEY, [reply.callReply(`${name}__connect`, { url: "javascript:alert(1)" }, { id: `${name}-1` }), reply.text("Refused.")]);
      const socket = await sessionWith(crypto.randomUUID(), name);
      const from = socket.received.length;
      socket.send({ type: "message", text: "connect my account" });
      const { end, messages } = await socket.turnEnd(from);
      expect(end.reason).toBe("complete");
      expect(messages.filter((m) => m.type.startsWith("elicitation_"))).toEqual([]);
      expect(completed(messages)).toContain("URL elicitation refused: only http and https URLs are opened, not javascript:");
      socket.close();
    });
  });
});
