// Push to the approvers of a shared chat (issue 40, docs/people.md) in real workerd, the test
// push service decrypting each push: alice's chat is shared with bob as approver, carol as
// viewer and frank as participant. An approval waiting while nobody watches goes to alice and
// bob, each with a token of their own (bob's says whose chat it is); carol and frank get
// nothing. Bob's token is his: signed in as alice it is refused; his action answers the call
// and names him; alice's token then finds it answered. Made a viewer, bob's next token does
// nothing. An approver with a visible page is not pushed.
import { SELF } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type Message } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession, WORKER_ORIGIN, workerFetch } from "../worker-fetch";
import { onlyDevice, pushesTo, type ReceivedPush } from "./push-fixture";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const json = { "content-type": "application/json" };

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

async function invite(id: string, name: TestUser, role: string): Promise<void> {
  const res = await workerFetch(`/sessions/${id}/people`, { method: "POST", headers: json, body: JSON.stringify({ name, role }) }, "alice");
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

async function act(token: string, action: "allow" | "deny", user?: TestUser): Promise<{ status: number; code?: string; outcome?: string }> {
  const init = { method: "POST", headers: json, body: JSON.stringify({ token, action }) };
  const response = user ? await workerFetch("/push/act", init, user) : await SELF.fetch(`${WORKER_ORIGIN}/push/act`, init);
  const body = (await response.json()) as { outcome?: string; error?: { code: string } };
  return { status: response.status, code: body.error?.code, outcome: body.outcome };
}

type Payload = { kind: string; session: string; chat?: string; ref?: string; tool?: string; token?: string };
const payloadOf = (push: ReceivedPush | undefined) => JSON.parse(push?.plaintext ?? "{}") as Payload;
const askingTurn = (answer: string) => [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }), reply.text(answer)];

describe("an approval in a shared chat", () => {
  it("is pushed to the owner and the approvers, each with their own token; never to a viewer or participant", async () => {
    const devices = { alice: await onlyDevice("alice"), bob: await onlyDevice("bob"), carol: await onlyDevice("carol"), frank: await onlyDevice("frank") };
    const id = crypto.randomUUID();
    const alice = await openSession(id, "alice");
    alice.send({ type: "visibility", visible: false });
    await invite(id, "bob", "approver");
    await invite(id, "carol", "viewer");
    await invite(id, "frank", "participant");
    await script(llm, KEY, [...askingTurn("first"), ...askingTurn("second")]);
    const from = alice.say("Shared work");
    const request = await alice.next(frameOf("approval_request"), from);

    const [ownerPush] = await pushesTo(devices.alice, 1);
    const [bobPush] = await pushesTo(devices.bob, 1);
    expect(bobPush?.verified).toBe(true);
    const mine = payloadOf(ownerPush);
    const his = payloadOf(bobPush);
    expect(mine).toMatchObject({ kind: "approval", session: id, ref: request.callId, tool: "get_file_info", chat: "Shared work" });
    // Bob's account does not hold alice's chat: it is named by whose it is.
    expect(his).toMatchObject({ kind: "approval", session: id, ref: request.callId, tool: "get_file_info", chat: "alice's chat" });
    expect(his.token).toBeDefined();
    expect(his.token).not.toBe(mine.token);

    // Bob's token is bound to bob: presented while signed in as alice it is spent for nothing.
    expect(await act(his.token ?? "", "allow", "alice")).toMatchObject({ status: 403, code: "push_token_foreign" });
    // Alice's token works for alice; bob's next one (below) for bob.
    expect(await act(mine.token ?? "", "deny")).toMatchObject({ status: 200, outcome: "denied" });
    const resolved = (await alice.next(frameOf("approval_resolved"), from)) as Message<"approval_resolved">;
    expect(resolved).toMatchObject({ callId: request.callId, approved: false, via: "notification", by: { name: "alice" } });
    await alice.turnEnd(from);

    // The second approval: bob answers it from his notification, and is named as who answered.
    const from2 = alice.say("again");
    const second = await alice.next(frameOf("approval_request"), from2);
    const bobs = await pushesTo(devices.bob, 2);
    const hisSecond = payloadOf(bobs[1]);
    expect(hisSecond).toMatchObject({ kind: "approval", ref: second.callId });
    // Alice's pushes may hold the first turn's "answer ready" too (a turn over a second is long here): hers for this call.
    const alicesSecond = async () => (await pushesTo(devices.alice)).map(payloadOf).find((p) => p.ref === second.callId);
    await expect.poll(alicesSecond).toBeDefined();
    const aliceToken = (await alicesSecond())?.token ?? "";
    expect(await act(hisSecond.token ?? "", "allow", "bob")).toMatchObject({ status: 200, outcome: "allowed" });
    const byBob = (await alice.next(frameOf("approval_resolved"), from2)) as Message<"approval_resolved">;
    expect(byBob).toMatchObject({ callId: second.callId, approved: true, via: "notification", by: { name: "bob" } });
    // Answered once: alice's token for the same call finds it answered.
    expect(await act(aliceToken, "deny")).toMatchObject({ status: 409, code: "push_already_answered" });
    expect((await alice.turnEnd(from2)).end.reason).toBe("complete");

    // The viewer and the participant were never pushed anything (every push of the two turns has arrived by now).
    expect(await pushesTo(devices.carol)).toEqual([]);
    expect(await pushesTo(devices.frank)).toEqual([]);
    alice.close();
  });

  it("a token pushed to an approver made a viewer since answers nothing; an approver whose page is visible is not pushed", async () => {
    const bobDevice = await onlyDevice("bob");
    const id = crypto.randomUUID();
    const alice = await openSession(id, "alice");
    alice.send({ type: "visibility", visible: false });
    await invite(id, "bob", "approver");
    await script(llm, KEY, [...askingTurn("first"), ...askingTurn("second")]);
    const from = alice.say("Demotion");
    const request = await alice.next(frameOf("approval_request"), from);
    const [push] = await pushesTo(bobDevice, 1);
    expect(payloadOf(push)).toMatchObject({ kind: "approval", ref: request.callId });
    await invite(id, "bob", "viewer");
    expect(await act(payloadOf(push).token ?? "", "allow", "bob")).toMatchObject({ status: 410, code: "push_token_invalid" });
    // Still waiting: the owner answers it.
    alice.send({ type: "approval", callId: request.callId, approved: false });
    expect((await alice.turnEnd(from)).end.reason).toBe("complete");

    // Approver again, with a visible page on the chat: no push for him.
    await invite(id, "bob", "approver");
    const bob = await openSession(id, "bob");
    bob.send({ type: "visibility", visible: true });
    const from2 = alice.say("watched");
    const second = await alice.next(frameOf("approval_request"), from2);
    bob.send({ type: "approval", callId: second.callId, approved: true });
    expect((await alice.turnEnd(from2)).end.reason).toBe("complete");
    expect(await pushesTo(bobDevice)).toHaveLength(1);
    bob.close();
    alice.close();
  });
});
