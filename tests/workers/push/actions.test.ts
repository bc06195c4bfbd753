// A notification's Allow once / Deny in real workerd: the token comes out of the push the test
// push service decrypted, and POST /push/act answers the waiting approval with it, once. A
// replayed, expired, foreign or malformed token does nothing; a call answered in the page
// first is not answered twice.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { type AuditRecord, personKey } from "../../../src/audit/record";
import type { Env } from "../../../src/config/env";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type SessionClient } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession, WORKER_ORIGIN, workerFetch } from "../worker-fetch";
import { onlyDevice, pushesTo } from "./push-fixture";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const USER: TestUser = "bob";
const json = { "content-type": "application/json" };

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

interface Asked {
  sessionId: string;
  socket: SessionClient;
  from: number;
  callId: string;
  token: string;
}

/** Bob's hidden chat asks to run a tool; the token is read from the push his device decrypted. */
async function askWhileAway(): Promise<Asked> {
  const device = await onlyDevice(USER);
  await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }), reply.text("done")]);
  const sessionId = crypto.randomUUID();
  const socket = await openSession(sessionId, USER);
  socket.send({ type: "visibility", visible: false });
  const from = socket.received.length;
  socket.send({ type: "message", text: "file info" });
  const { callId } = await socket.next(frameOf("approval_request"), from);
  const [push] = await pushesTo(device, 1);
  const payload = JSON.parse(push?.plaintext ?? "{}") as { token?: string; ref?: string; expiresAt?: number };
  expect(payload.ref).toBe(callId);
  expect(payload.token).toMatch(new RegExp(`^v1\\.${sessionId}\\.[A-Za-z0-9_-]{43}$`));
  expect(payload.expiresAt).toBeGreaterThan(Date.now());
  return { sessionId, socket, from, callId, token: payload.token ?? "" };
}

/** POST /push/act signed out (a locked phone's service worker), or signed in as `user`. */
async function act(token: string, action: "allow" | "deny", user?: TestUser): Promise<{ status: number; code?: string; outcome?: string }> {
  const init = { method: "POST", headers: json, body: JSON.stringify({ token, action }) };
  const response = user ? await workerFetch("/push/act", init, user) : await SELF.fetch(`${WORKER_ORIGIN}/push/act`, init);
  const body = (await response.json()) as { outcome?: string; error?: { code: string } };
  return { status: response.status, code: body.error?.code, outcome: body.outcome };
}

/** The decision of the chat's one call as bob's audit trail has it, once it arrived. */
async function decisionOf(sessionId: string): Promise<AuditRecord["decision"] | undefined> {
  const read = async () => ((await (await workerFetch(`/api/audit?session=${sessionId}`, {}, USER)).json()) as { records: AuditRecord[] }).records;
  await expect.poll(async () => (await read()).length, { timeout: 15_000 }).toBe(1);
  return (await read())[0]?.decision;
}

describe("POST /push/act", () => {
  it("allow runs the call, once: a replay answers 410", async () => {
    const { sessionId, socket, from, callId, token } = await askWhileAway();
    expect(await act(token, "allow")).toEqual({ status: 200, outcome: "allowed", code: undefined });
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(messages).toContainEqual({ type: "approval_resolved", callId, approved: true, via: "notification" });
    expect(messages.find((m) => m.type === "status" && m.state === "complete")).toMatchObject({ callId });
    expect(await act(token, "allow")).toMatchObject({ status: 410, code: "push_token_invalid" });
    expect(await act(token, "deny")).toMatchObject({ status: 410, code: "push_token_invalid" });
    socket.close();
    // The audit trail says who answered and where: bob, from the notification (docs/audit.md).
    expect(await decisionOf(sessionId)).toEqual({ how: "asked", answer: "allowed", by: { key: personKey("token:bob"), name: "bob" }, via: "notification" });
  });

  it("deny tells the model the person denied it", async () => {
    const { sessionId, socket, from, token } = await askWhileAway();
    expect(await act(token, "deny", USER)).toMatchObject({ status: 200, outcome: "denied" });
    const { messages } = await socket.turnEnd(from);
    expect(messages.find((m) => m.type === "entry" && m.entry.kind === "tool_result")).toMatchObject({ entry: { error: "The user denied this tool call." } });
    socket.close();
    expect(await decisionOf(sessionId)).toMatchObject({ how: "asked", answer: "denied", via: "notification" });
  });

  it("an expired token answers 410 and leaves the question to the page", async () => {
    const { sessionId, socket, from, callId, token } = await askWhileAway();
    const namespace = (env as unknown as Env).CHAT_SESSION;
    await runInDurableObject(namespace.get(namespace.idFromName(sessionId)), (_instance, state) => {
      state.storage.sql.exec("UPDATE push_tokens SET expires_at = ?", Date.now() - 1);
    });
    expect(await act(token, "allow")).toMatchObject({ status: 410, code: "push_token_invalid" });
    socket.send({ type: "approval", callId, approved: false });
    expect((await socket.turnEnd(from)).end.reason).toBe("complete");
    socket.close();
  });

  it("someone signed in as another person spends the token for nothing (403); the owner's page still answers", async () => {
    const { socket, from, callId, token } = await askWhileAway();
    expect(await act(token, "allow", "alice")).toMatchObject({ status: 403, code: "push_token_foreign" });
    // Spent: not even bob's own device can use it now.
    expect(await act(token, "allow", USER)).toMatchObject({ status: 410, code: "push_token_invalid" });
    socket.send({ type: "approval", callId, approved: false });
    const { messages } = await socket.turnEnd(from);
    expect(messages).toContainEqual({ type: "approval_resolved", callId, approved: false });
    socket.close();
  });

  it("a call answered in the page first is not answered again (409)", async () => {
    const { socket, from, callId, token } = await askWhileAway();
    socket.send({ type: "approval", callId, approved: false });
    await socket.next((m) => m.type === "approval_resolved", from);
    expect(await act(token, "allow")).toMatchObject({ status: 409, code: "push_already_answered" });
    const { messages } = await socket.turnEnd(from);
    expect(messages.filter((m) => m.type === "approval_resolved")).toEqual([{ type: "approval_resolved", callId, approved: false }]);
    socket.close();
  });

  it("a malformed token, or one naming another chat, answers 410", async () => {
    const { socket, from, callId, sessionId, token } = await askWhileAway();
    expect(await act("not-a-token", "allow")).toMatchObject({ status: 410, code: "push_token_invalid" });
    expect(await act(token.replace(sessionId, crypto.randomUUID()), "allow")).toMatchObject({ status: 410, code: "push_token_invalid" });
    expect(await act(`${token.slice(0, -4)}AAAA`, "allow")).toMatchObject({ status: 410, code: "push_token_invalid" });
    // The real token still works after those.
    expect(await act(token, "deny")).toMatchObject({ status: 200, outcome: "denied" });
    await socket.turnEnd(from);
    expect(callId).toBeTruthy();
    socket.close();
  });
});
