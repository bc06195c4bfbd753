// Several people in one chat (issue 40; docs/people.md) in real workerd, the real fake model
// and the real filesystem server through the bridge: alice owns the chat, bob and carol are
// invited, dave never is. Three sockets at once: presence, authors, who answered; and every
// refusal — a viewer sending, a participant approving, a removed person's open socket and
// their reconnect, a guessed id, the invite cap, an unknown name, bob's own server and rate.
import { env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Connection } from "agents";
import type { Env } from "../../../src/config/env";
import type { ClientMessage } from "../../../src/protocol/messages";
import type { ChatSession } from "../../../src/session/ChatSession";
import { userAccount } from "../../../src/users/account";
import { bucketKey } from "../../../src/users/spend-ledger";
import type { StoredUserServer } from "../../../src/users/user-servers";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type Message, type SessionClient } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const is = frameOf;
const json = { "content-type": "application/json" };
const bindings = env as unknown as Env;

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

type MemberView = { key: string; name: string; role: string; joined: boolean; here: boolean };

async function invite(id: string, name: string, role: string, as: TestUser = "alice"): Promise<Response> {
  return workerFetch(`/sessions/${id}/people`, { method: "POST", headers: json, body: JSON.stringify({ name, role }) }, as);
}

async function invited(id: string, name: string, role: string): Promise<MemberView> {
  const res = await invite(id, name, role);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as MemberView;
}

const sharedWith = async (user: TestUser) =>
  ((await (await workerFetch("/api/shared-with-me", {}, user)).json()) as { chats: { sessionId: string; ownerName: string; role: string }[] }).chats;

/** The error a frame gets back, the socket still open after it (a ping is answered). */
async function refusal(socket: SessionClient, frame: Record<string, unknown>): Promise<Message<"error">> {
  const from = socket.received.length;
  socket.send(frame);
  const error = (await socket.next(is("error"), from)) as Message<"error">;
  socket.send({ type: "ping" });
  await socket.next(is("pong"), from);
  return error;
}

/** The newest `people` frame a socket got. */
const lastPeople = (socket: SessionClient) => socket.received.filter(is("people")).at(-1) as Message<"people"> | undefined;
const hereNames = (socket: SessionClient) =>
  lastPeople(socket)
    ?.members.filter((m) => m.here)
    .map((m) => m.name)
    .sort();

/** A model turn that calls get_file_info (asked for approval), then answers `answer`. */
const askingTurn = (id: string, answer: string) => [reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id }), reply.text(answer)];

describe("several people in one chat", () => {
  it("three people at once: roles gate frames, authors and who answered are shown, a promotion applies on the open socket", async () => {
    await script(llm, KEY, [...askingTurn("people-1", "Bob's answer."), ...askingTurn("people-2", "Second answer.")]);
    const id = crypto.randomUUID();
    const alice = await openSession(id, "alice");
    const bobView = await invited(id, "bob", "participant");
    expect(bobView).toMatchObject({ name: "bob", role: "participant", joined: false, here: false });
    expect(bobView.key).toMatch(/^[0-9a-f]{12}$/);
    await invited(id, "carol", "viewer");
    const listed = (await (await workerFetch(`/sessions/${id}/people`)).json()) as {
      owner: { name: string };
      members: MemberView[];
      cap: number;
      tools: string;
    };
    expect(listed).toMatchObject({ owner: { name: "alice" }, cap: 3, tools: "owner" });
    expect(listed.members.map((m) => [m.name, m.role])).toEqual([
      ["bob", "participant"],
      ["carol", "viewer"],
    ]);
    // Ids never go to a page: the owner's list names people by key and name only.
    expect(JSON.stringify(listed)).not.toContain("token:");
    // Their "Shared with me" lists carry the chat at once (token mode knows their ids).
    expect(await sharedWith("bob")).toContainEqual(expect.objectContaining({ sessionId: id, ownerName: "alice", role: "participant" }));

    const bob = await openSession(id, "bob");
    const carol = await openSession(id, "carol");
    expect(bob.received.find(is("connection"))).toMatchObject({ you: { name: "bob", role: "participant", key: bobView.key } });
    expect(carol.received.find(is("connection"))).toMatchObject({ you: { name: "carol", role: "viewer" } });
    // Presence: everyone sees who is here; the owner's list also has those only invited.
    await expect.poll(() => hereNames(alice)).toEqual(["bob", "carol"]);
    await expect.poll(() => hereNames(carol)).toEqual(["bob", "carol"]);
    expect(lastPeople(carol)?.owner).toMatchObject({ name: "alice", here: true });

    // A viewer cannot send: typed refusal naming what and whose chat; no turn starts.
    const fromCarol = carol.received.length;
    expect(await refusal(carol, { type: "message", text: "carol tries" })).toMatchObject({
      code: "role_forbidden",
      message: expect.stringContaining("Viewers can't send messages in alice's chat"),
    });
    expect(carol.received.slice(fromCarol).some((m) => m.type === "turn_start")).toBe(false);
    // Nor change the chat (owner only), even as a participant.
    expect(await refusal(bob, { type: "set_servers", enabled: [] })).toMatchObject({ code: "role_forbidden" });
    expect(await refusal(bob, { type: "reset" })).toMatchObject({ code: "role_forbidden" });

    // A participant sends; everyone sees the turn live, and his entry carries his name.
    const from = { alice: alice.received.length, bob: bob.received.length, carol: carol.received.length };
    bob.send({ type: "message", text: "bob's question" });
    const asked = (await alice.next(is("approval_request"), from.alice)) as Message<"approval_request">;
    await carol.next(is("approval_request"), from.carol);
    // Neither the participant nor the viewer may answer; the question stays open.
    expect(await refusal(bob, { type: "approval", callId: asked.callId, approved: true })).toMatchObject({
      code: "role_forbidden",
      message: expect.stringContaining("Participants can't answer approvals"),
    });
    expect(await refusal(carol, { type: "approval", callId: asked.callId, approved: true })).toMatchObject({ code: "role_forbidden" });
    expect(bob.received.slice(from.bob).some((m) => m.type === "approval_resolved")).toBe(false);
    alice.send({ type: "approval", callId: asked.callId, approved: true });
    expect(await bob.next(is("approval_resolved"), from.bob)).toMatchObject({ callId: asked.callId, approved: true, by: { name: "alice" } });
    const { end } = await carol.turnEnd(from.carol);
    expect(end.reason).toBe("complete");
    expect(carol.entries(from.carol).find((e) => e.kind === "user")).toMatchObject({ text: "bob's question", author: { key: bobView.key, name: "bob" } });
    expect(carol.entries(from.carol).some((e) => e.kind === "assistant" && e.text === "Bob's answer.")).toBe(true);
    // History read over HTTP by a viewer carries the author too.
    const history = (await (await workerFetch(`/sessions/${id}/history`, {}, "carol")).json()) as { entries: { kind: string; author?: { name: string } }[] };
    expect(history.entries.find((e) => e.kind === "user")?.author?.name).toBe("bob");

    // Carol promoted on her open socket: told at once, and she answers the next question.
    const promoted = await workerFetch(`/sessions/${id}/people/${lastPeople(alice)?.members.find((m) => m.name === "carol")?.key}`, {
      method: "PATCH",
      headers: json,
      body: JSON.stringify({ role: "approver" }),
    });
    expect(promoted.status).toBe(200);
    expect(await carol.next(is("you"), from.carol)).toMatchObject({ name: "carol", role: "approver" });
    const again = { alice: alice.received.length, carol: carol.received.length };
    bob.send({ type: "message", text: "second" });
    const second = (await carol.next(is("approval_request"), again.carol)) as Message<"approval_request">;
    carol.send({ type: "approval", callId: second.callId, approved: true });
    expect(await alice.next(is("approval_resolved"), again.alice)).toMatchObject({ callId: second.callId, by: { name: "carol" } });
    await alice.turnEnd(again.alice);
    expect(await sharedWith("carol")).toContainEqual(expect.objectContaining({ sessionId: id, role: "approver" }));

    // A participant stops only a turn he started; the owner's controls stay hers.
    expect(await refusal(bob, { type: "compact" })).toMatchObject({ code: "role_forbidden" });
    for (const socket of [alice, bob, carol]) socket.close();
  });

  it("the owner's rules for all their chats stay the owner's: an approver neither sees nor revokes them", async () => {
    // dave (an outsider elsewhere in this file) owns this one: his rule for all chats lives in his account beyond it, and is revoked at the end.
    await script(llm, KEY, askingTurn("people-rule", "Ruled."));
    const id = crypto.randomUUID();
    const dave = await openSession(id, "dave");
    expect((await invite(id, "frank", "approver", "dave")).status).toBe(201);
    const frank = await openSession(id, "frank");
    const from = { dave: dave.received.length, frank: frank.received.length };
    dave.send({ type: "message", text: "look" });
    const asked = (await dave.next(is("approval_request"), from.dave)) as Message<"approval_request">;
    dave.send({ type: "approval", callId: asked.callId, approved: true, rule: { arg: "path", kind: "path", value: root, scope: "all" } });
    await dave.turnEnd(from.dave);
    const listed = (socket: SessionClient) => socket.received.filter(is("always_allowed")).at(-1) as Message<"always_allowed"> | undefined;
    await expect.poll(() => listed(dave)?.rules?.map((r) => r.scope)).toEqual(["all"]);
    const rule = listed(dave)?.rules?.[0];
    // The approver's socket heard the same change without the owner's rule.
    expect(frank.received.filter(is("always_allowed")).length).toBeGreaterThan(1);
    expect(listed(frank)?.rules ?? []).toEqual([]);
    expect(JSON.stringify(frank.received)).not.toContain(rule?.id);
    // Nor may she revoke it by its id: the owner's, and it stays.
    expect(await refusal(frank, { type: "revoke_rule", id: rule?.id })).toMatchObject({ code: "role_forbidden" });
    const kept = (await (await workerFetch("/api/rules", {}, "dave")).json()) as { rules: { id: string }[] };
    expect(kept.rules.map((r) => r.id)).toContain(rule?.id);
    dave.send({ type: "revoke_rule", id: rule?.id });
    await expect.poll(() => listed(dave)?.rules ?? []).toEqual([]);
    for (const socket of [dave, frank]) socket.close();
  });

  it("a removed person's open socket closes 4403; they, a guessed id and an outsider get 404 everywhere", async () => {
    const id = crypto.randomUUID();
    const alice = await openSession(id, "alice");
    const bobView = await invited(id, "bob", "participant");
    const bob = await openSession(id, "bob");
    await expect.poll(() => hereNames(alice)).toEqual(["bob"]);

    const removed = await workerFetch(`/sessions/${id}/people/${bobView.key}`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    expect(await bob.closed).toBe(4403);
    await expect.poll(() => hereNames(alice)).toEqual([]);
    expect(lastPeople(alice)?.members).toEqual([]);
    // He cannot come back, by socket or HTTP; the chat left his list.
    await expect(openSession(id, "bob")).rejects.toThrow();
    expect((await workerFetch(`/sessions/${id}/history`, {}, "bob")).status).toBe(404);
    expect((await sharedWith("bob")).map((c) => c.sessionId)).not.toContain(id);
    // Removing him again, or a key nobody has: member_unknown.
    const gone = await workerFetch(`/sessions/${id}/people/${bobView.key}`, { method: "DELETE" });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("member_unknown");

    // Dave, never invited, with the real id: 404 on the socket, the history, the people routes.
    await expect(openSession(id, "dave")).rejects.toThrow();
    for (const path of [`/sessions/${id}/history`, `/sessions/${id}/people`]) expect((await workerFetch(path, {}, "dave")).status, path).toBe(404);
    expect((await invite(id, "dave", "approver", "dave")).status).toBe(404);
    // A guessed id (never claimed) is 404 too, and is not claimed by asking.
    const guessed = crypto.randomUUID();
    expect((await workerFetch(`/sessions/${guessed}/history`, {}, "dave")).status).toBe(404);
    expect((await workerFetch(`/sessions/${guessed}/people`, {}, "dave")).status).toBe(404);
    alice.close();
  });

  it("refuses an unknown name, yourself, a bad role and past the cap; a member cannot invite; delete takes the chat off every list", async () => {
    const id = crypto.randomUUID();
    const alice = await openSession(id, "alice");
    const unknown = await invite(id, "mallory", "viewer");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("unknown_person");
    expect((await invite(id, "alice", "viewer")).status).toBe(400);
    const badRole = await invite(id, "bob", "owner");
    expect(badRole.status).toBe(400);
    expect(((await badRole.json()) as { error: { message: string } }).error.message).toContain("role");

    await invited(id, "bob", "viewer");
    await invited(id, "carol", "approver");
    await invited(id, "dave", "viewer");
    // Inviting someone again changes their role (200), and takes no seat.
    const changed = await invite(id, "bob", "participant");
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ name: "bob", role: "participant" });
    const full = await invite(id, "erin", "viewer");
    expect(full.status).toBe(409);
    expect(((await full.json()) as { error: { code: string } }).error.code).toBe("too_many_invites");
    // Members are not owners: the people routes stay alice's.
    expect((await invite(id, "frank", "viewer", "carol")).status).toBe(404);
    expect((await workerFetch(`/sessions/${id}/people`, {}, "carol")).status).toBe(404);

    const carol = await openSession(id, "carol");
    expect((await sharedWith("carol")).map((c) => c.sessionId)).toContain(id);
    expect((await workerFetch(`/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
    await carol.closed;
    for (const user of ["bob", "carol", "dave"] as const)
      expect(
        (await sharedWith(user)).map((c) => c.sessionId),
        user,
      ).not.toContain(id);
    await expect(openSession(id, "carol")).rejects.toThrow();
    alice.close();
  });

  it("a participant stops only a turn he started; a viewer none; the owner any", async () => {
    await script(llm, KEY, [reply.hang("alice's slow answer"), reply.hang("bob's slow answer")]);
    const id = crypto.randomUUID();
    const alice = await openSession(id, "alice");
    await invited(id, "bob", "participant");
    await invited(id, "carol", "viewer");
    const bob = await openSession(id, "bob");
    const carol = await openSession(id, "carol");

    const first = bob.received.length;
    const firstAlice = alice.received.length;
    alice.send({ type: "message", text: "alice asks" });
    const started = (await bob.next(is("turn_start"), first)) as Message<"turn_start">;
    expect(await refusal(bob, { type: "cancel", turnId: started.turnId })).toMatchObject({
      code: "role_forbidden",
      message: expect.stringContaining("Participants can't stop a turn someone else started"),
    });
    expect(await refusal(carol, { type: "cancel" })).toMatchObject({ code: "role_forbidden" });
    expect(bob.received.slice(first).some((m) => m.type === "turn_end")).toBe(false);
    alice.send({ type: "cancel" });
    expect((await bob.turnEnd(first)).end.reason).toBe("cancelled");
    await alice.turnEnd(firstAlice);

    const second = alice.received.length;
    const secondBob = bob.received.length;
    bob.send({ type: "message", text: "bob asks" });
    const his = (await alice.next(is("turn_start"), second)) as Message<"turn_start">;
    expect(bob.received.slice(secondBob).filter(is("error"))).toEqual([]);
    bob.send({ type: "cancel", turnId: his.turnId });
    expect((await alice.turnEnd(second)).end).toMatchObject({ turnId: his.turnId, reason: "cancelled" });
    for (const socket of [alice, bob, carol]) socket.close();
  });

  it("a participant's cancel right behind his message stops that turn (his own rate is asked inside it)", async () => {
    await script(llm, KEY, [reply.hang("bob's slow answer")]);
    const id = crypto.randomUUID();
    const alice = await openSession(id, "alice");
    await invited(id, "bob", "participant");
    const bob = await openSession(id, "bob");
    const from = bob.received.length;
    // His two frames in order, in one event of the object (two frames sent back to back have been seen to reach
    // it in the other order here): the turn is his from its claim, while his own rate is still being asked.
    const sessions = bindings.CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
    await runInDurableObject(sessions.get(sessions.idFromName(id)), async (instance: ChatSession) => {
      const session = instance as unknown as { getConnections(): Iterable<Connection>; onFrame(c: Connection, m: ClientMessage): Promise<void> };
      const his = [...session.getConnections()].find((c) => (c.state as { user?: string } | null)?.user === "token:bob");
      if (!his) throw new Error("bob's socket is not on the chat");
      const message = session.onFrame(his, { type: "message", text: "bob asks" });
      await session.onFrame(his, { type: "cancel" });
      await message;
    });
    const { end, messages } = await bob.turnEnd(from);
    expect(end.reason).toBe("cancelled");
    expect(messages.filter(is("error"))).toEqual([]);
    for (const socket of [alice, bob]) socket.close();
  });

  it("runs the owner's servers only, and counts a participant's messages against his own rate", async () => {
    // Bob's own server (as a paired machine's would be, it comes from his account) never joins alice's chat.
    const own: StoredUserServer = {
      name: "bobs-own",
      url: "http://127.0.0.1:9/mcp",
      type: "http",
      headers: {},
      alwaysAllow: [],
      excludeTools: [],
      disabled: false,
    };
    const bobAccount = userAccount(bindings, "token:bob");
    expect(await bobAccount.putServer(own, true)).toEqual({ ok: true });
    try {
      await script(llm, KEY, [reply.text("Alice's turn.")]);
      const id = crypto.randomUUID();
      const alice = await openSession(id, "alice");
      await invited(id, "bob", "participant");
      const bob = await openSession(id, "bob");
      const servers = (await bob.next(is("servers"), 0)) as Message<"servers">;
      expect(servers.servers.map((s) => s.name)).not.toContain("bobs-own");
      expect(servers.servers.map((s) => s.name)).toContain("filesystem");

      // Bob's own bucket spent (as of a minute from now, so it cannot refill before his message): his
      // message is refused with his rate_limited, while alice's still runs. The bucket is reset after.
      const later = Date.now() + 60_000;
      while ((await bobAccount.admit("turn", { perMinute: 600, burst: 100 }, later)).ok);
      const fromBob = bob.received.length;
      bob.send({ type: "message", text: "one too many" });
      expect(await bob.next(is("error"), fromBob)).toMatchObject({ code: "rate_limited" });
      const fromAlice = alice.received.length;
      alice.send({ type: "message", text: "alice still talks" });
      expect((await alice.turnEnd(fromAlice)).end.reason).toBe("complete");
      expect(alice.entries(fromAlice).some((e) => e.kind === "user" && e.text === "one too many")).toBe(false);
      bob.close();
      alice.close();
    } finally {
      await bobAccount.deleteServer("bobs-own");
      await runInDurableObject(bobAccount, (_instance, state) => state.storage.delete(bucketKey("turn")));
    }
  });
});
