// Pushes from a chat session in real workerd to the test push service: a person whose only
// page on the chat says it is hidden gets an approval's notification (verified, decrypted)
// naming the chat, server and tool and never the arguments; a visible page gets none; a page
// hidden after the question appeared gets it late; a long turn's end is pushed too.
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type SessionClient } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession } from "../worker-fetch";
import { onlyDevice, pushesTo } from "./push-fixture";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const USER: TestUser = "bob";

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

function send(socket: SessionClient, text: string): number {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return from;
}

type Payload = { v: number; kind: string; session: string; chat?: string; server?: string; tool?: string; ref?: string; tag: string; token?: string };

describe("pushes to a person who is away", () => {
  it("a hidden page's person gets the approval named by chat, server and tool, never its arguments", async () => {
    const device = await onlyDevice(USER);
    const marker = `secret-${crypto.randomUUID()}`;
    await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/${marker}.txt` }), reply.text("ok")]);
    const sessionId = crypto.randomUUID();
    const socket = await openSession(sessionId, USER);
    socket.send({ type: "visibility", visible: false });
    const from = send(socket, "Trip planning");
    const request = await socket.next(frameOf("approval_request"), from);
    const [push, ...more] = await pushesTo(device, 1);
    expect(more).toEqual([]);
    expect(push?.verified).toBe(true);
    const payload = JSON.parse(push?.plaintext ?? "{}") as Payload;
    expect(payload).toMatchObject({
      v: 1,
      kind: "approval",
      session: sessionId,
      ref: request.callId,
      server: "filesystem",
      tool: "get_file_info",
      tag: `approval:${request.callId}`,
    });
    expect(payload.chat).toBe("Trip planning");
    expect(push?.headers.urgency).toBe("high");
    // The arguments are the person's business: not in the payload, not in any header.
    expect(push?.plaintext).not.toContain(marker);
    expect(JSON.stringify(push?.headers)).not.toContain(marker);
    socket.send({ type: "approval", callId: request.callId, approved: false });
    expect((await socket.turnEnd(from)).end.reason).toBe("complete");
    socket.close();
  });

  it("a visible page (or one that never said) gets no push", async () => {
    const device = await onlyDevice(USER);
    await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }), reply.text("ok")]);
    const socket = await openSession(crypto.randomUUID(), USER);
    socket.send({ type: "visibility", visible: true });
    const from = send(socket, "visible");
    const request = await socket.next(frameOf("approval_request"), from);
    socket.send({ type: "approval", callId: request.callId, approved: true });
    expect((await socket.turnEnd(from)).end.reason).toBe("complete");
    // Asserted after the question was answered and the turn ended: any push would have been sent by now.
    const bystander = await openSession(crypto.randomUUID(), USER);
    await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }), reply.text("ok")]);
    const from2 = send(bystander, "never said");
    const request2 = await bystander.next(frameOf("approval_request"), from2);
    bystander.send({ type: "approval", callId: request2.callId, approved: true });
    await bystander.turnEnd(from2);
    expect(await pushesTo(device)).toEqual([]);
    socket.close();
    bystander.close();
  });

  it("a page hidden after the question appeared gets the push then, once", async () => {
    const device = await onlyDevice(USER);
    await script(llm, KEY, [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }), reply.text("ok")]);
    const socket = await openSession(crypto.randomUUID(), USER);
    const from = send(socket, "late");
    const request = await socket.next(frameOf("approval_request"), from);
    socket.send({ type: "visibility", visible: false });
    const [push] = await pushesTo(device, 1);
    expect(JSON.parse(push?.plaintext ?? "{}")).toMatchObject({ kind: "approval", ref: request.callId });
    socket.send({ type: "visibility", visible: true });
    socket.send({ type: "visibility", visible: false });
    socket.send({ type: "approval", callId: request.callId, approved: false });
    await socket.turnEnd(from);
    expect(await pushesTo(device)).toHaveLength(1);
    socket.close();
  });

  it("a long turn that ends while its person is away says so (PUSH_LONG_TURN_SECONDS=1 here)", async () => {
    const device = await onlyDevice(USER);
    await script(llm, KEY, [reply.stream(["slow answer"], { firstChunkMs: 1_200 })]);
    const socket = await openSession(crypto.randomUUID(), USER);
    socket.send({ type: "visibility", visible: false });
    const from = send(socket, "take your time");
    const { end } = await socket.turnEnd(from);
    const [push] = await pushesTo(device, 1);
    expect(JSON.parse(push?.plaintext ?? "{}")).toMatchObject({ kind: "turn_done", ref: end.turnId, chat: "take your time" });
    expect(push?.headers.urgency).toBe("normal");
    socket.close();
  });
});
