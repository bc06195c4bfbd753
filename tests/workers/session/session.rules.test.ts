// Argument rules in a real session (issue 40; docs/rules.md): the real filesystem server
// through the bridge, the fake model calling write_file. A rule made from an approval allows
// that tool for paths under one folder and asks for any other, `..` included; it is listed
// beside the always-allowed tools, revocable, and belongs to its chat only.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { RULES_PER_USER } from "../../../src/users/argument-rules-store";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type Message, type SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const is = frameOf;

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

function write(path: string, id: string) {
  return [reply.callReply("filesystem__write_file", { path, content: "x" }, { id }), reply.text("done")];
}

function send(socket: SessionClient, text: string): number {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return from;
}

/** A turn whose one call runs unasked: no approval_request, and its result is not an error. */
async function runsUnasked(socket: SessionClient) {
  const from = send(socket, "write");
  const { end, messages } = await socket.turnEnd(from);
  expect(end.reason).toBe("complete");
  expect(messages.some((m) => m.type === "approval_request")).toBe(false);
  const result = messages.find((m) => m.type === "entry" && m.entry.kind === "tool_result");
  expect(result).toMatchObject({ entry: { tool: "write_file" } });
  expect(result?.type === "entry" && result.entry.error).toBeFalsy();
}

/** A turn whose one call asks; denied, so nothing is written. */
async function asks(socket: SessionClient, path: string) {
  const from = send(socket, "write");
  const asked = await socket.next(is("approval_request"), from);
  expect(asked).toMatchObject({ tool: "write_file", arguments: { path } });
  socket.send({ type: "approval", callId: (asked as Message<"approval_request">).callId, approved: false });
  expect((await socket.turnEnd(from)).end.reason).toBe("complete");
}

describe("argument rules", () => {
  it("allow one folder and ask for another path, a .. escape and after a revoke; listed beside always-allowed", async () => {
    const sub = `${root}/sub`;
    await script(llm, KEY, [
      ...write(`${sub}/rule-a.txt`, "r1"),
      ...write(`${sub}/deeper/../rule-b.txt`, "r2"),
      ...write(`${sub}/../escape.txt`, "r3"),
      ...write(`${root}/other.txt`, "r4"),
      ...write(`${sub}/rule-c.txt`, "r5"),
    ]);
    const id = crypto.randomUUID();
    const socket = await openSession(id);
    expect(await socket.next(is("always_allowed"), 0)).toEqual({ type: "always_allowed", tools: [] });

    // The first call asks; a rule that would not allow it is refused with why, and the question stays open.
    const from = send(socket, "write");
    const request = (await socket.next(is("approval_request"), from)) as Message<"approval_request">;
    const refusedAt = socket.received.length;
    socket.send({ type: "approval", callId: request.callId, approved: true, rule: { arg: "path", kind: "path", value: `${root}/elsewhere`, scope: "chat" } });
    expect(await socket.next(is("error"), refusedAt)).toMatchObject({ code: "rule_invalid", message: expect.stringContaining("does not match") });
    const badArg = socket.received.length;
    socket.send({ type: "approval", callId: request.callId, approved: true, rule: { arg: "content", kind: "host", value: "example.com", scope: "chat" } });
    expect(await socket.next(is("error"), badArg)).toMatchObject({ code: "rule_invalid" });

    // The right rule answers the question, allows this call and is listed to the chat.
    socket.send({ type: "approval", callId: request.callId, approved: true, rule: { arg: "path", kind: "path", value: `${sub}/`, scope: "chat" } });
    const listed = (await socket.next((m) => is("always_allowed")(m) && (m.rules?.length ?? 0) > 0, from)) as Message<"always_allowed">;
    expect(listed.tools).toEqual([]);
    expect(listed.rules).toEqual([
      { id: expect.any(String), text: `filesystem.write_file when path is under ${sub}/`, scope: "chat", server: "filesystem", tool: "write_file" },
    ]);
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(messages).toContainEqual({ type: "approval_resolved", callId: request.callId, approved: true });

    // Under the folder (after normalising deeper/..): runs unasked.
    await runsUnasked(socket);
    // A .. escape and another path ask.
    await asks(socket, `${sub}/../escape.txt`);
    await asks(socket, `${root}/other.txt`);

    // The tool console's direct calls in this chat obey the same rule: under the folder unasked, elsewhere approval_required.
    const direct = (path: string) =>
      workerFetch("/api/tools/filesystem.write_file", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ arguments: { path, content: "y" }, sessionId: id }),
      });
    const allowed = await direct(`${sub}/console.txt`);
    expect({ status: allowed.status, body: allowed.status === 200 ? "" : await allowed.text() }).toEqual({ status: 200, body: "" });
    const refused = await direct(`${sub}/../console.txt`);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "approval_required" } });

    // Revoked: the next call under the folder asks again, and a second revoke says there is no such rule.
    const rule = listed.rules?.[0];
    if (!rule) throw new Error("no rule listed");
    const revokedAt = socket.received.length;
    socket.send({ type: "revoke_rule", id: rule.id });
    expect(await socket.next(is("always_allowed"), revokedAt)).toEqual({ type: "always_allowed", tools: [] });
    await asks(socket, `${sub}/rule-c.txt`);
    const again = socket.received.length;
    socket.send({ type: "revoke_rule", id: rule.id });
    expect(await socket.next(is("error"), again)).toMatchObject({ code: "rule_unknown" });
    socket.close();
  });

  it("belong to their chat: the same call in another chat of alice's, or in bob's, asks", async () => {
    const sub = `${root}/sub`;
    await script(llm, KEY, [...write(`${sub}/own-a.txt`, "o1"), ...write(`${sub}/own-b.txt`, "o2"), ...write(`${sub}/own-c.txt`, "o3")]);
    const alice = await openSession(crypto.randomUUID());
    const from = send(alice, "write");
    const request = (await alice.next(is("approval_request"), from)) as Message<"approval_request">;
    alice.send({ type: "approval", callId: request.callId, approved: true, rule: { arg: "path", kind: "path", value: sub, scope: "chat" } });
    expect((await alice.turnEnd(from)).end.reason).toBe("complete");
    alice.close();

    const aliceOther = await openSession(crypto.randomUUID());
    await asks(aliceOther, `${sub}/own-b.txt`);
    aliceOther.close();
    const bob = await openSession(crypto.randomUUID(), "bob");
    await asks(bob, `${sub}/own-c.txt`);
    bob.close();
  });
});

/** The first always_allowed frame since `from` that `pick` likes. */
async function listedWhere(socket: SessionClient, from: number, pick: (frame: Message<"always_allowed">) => boolean) {
  return (await socket.next((m) => is("always_allowed")(m) && pick(m as Message<"always_allowed">), from)) as Message<"always_allowed">;
}

describe("rules for all my chats", () => {
  it("a rule kept for all chats applies in the person's other chat, not in bob's; listed, revoked over HTTP and then asks", async () => {
    const sub = `${root}/sub`;
    await script(llm, KEY, [
      ...write(`${sub}/all-a.txt`, "g1"),
      ...write(`${sub}/all-b.txt`, "g2"),
      ...write(`${sub}/all-bob.txt`, "g3"),
      ...write(`${sub}/all-c.txt`, "g4"),
    ]);
    const first = await openSession(crypto.randomUUID(), "dave");
    const from = send(first, "write");
    const request = (await first.next(is("approval_request"), from)) as Message<"approval_request">;
    first.send({ type: "approval", callId: request.callId, approved: true, rule: { arg: "path", kind: "path", value: `${sub}/`, scope: "all" } });
    const listed = await listedWhere(first, from, (m) => (m.rules?.length ?? 0) > 0);
    expect(listed.rules).toEqual([
      { id: expect.any(String), text: `filesystem.write_file when path is under ${sub}/`, scope: "all", server: "filesystem", tool: "write_file" },
    ]);
    expect((await first.turnEnd(from)).end.reason).toBe("complete");
    first.close();

    // Another chat of dave's hears the rule on opening, and its call under the folder runs unasked.
    const other = await openSession(crypto.randomUUID(), "dave");
    expect((await listedWhere(other, 0, (m) => (m.rules?.length ?? 0) > 0)).rules).toEqual(listed.rules);
    await runsUnasked(other);

    // Bob's chat: dave's rule is nothing to him.
    const bob = await openSession(crypto.randomUUID(), "bob");
    await asks(bob, `${sub}/all-bob.txt`);
    bob.close();

    // Listed over HTTP to dave only; bob cannot delete it (404 as an unknown id).
    const id = listed.rules?.[0]?.id ?? "";
    const mine = await workerFetch("/api/rules", {}, "dave");
    expect(await mine.json()).toEqual({
      rules: [{ id, server: "filesystem", tool: "write_file", arg: "path", kind: "path", value: `${sub}/`, createdAt: expect.any(Number) }],
    });
    expect(await (await workerFetch("/api/rules", {}, "bob")).json()).toEqual({ rules: [] });
    const bobDelete = await workerFetch(`/api/rules/${id}`, { method: "DELETE" }, "bob");
    expect(bobDelete.status).toBe(404);
    expect(await bobDelete.json()).toMatchObject({ error: { code: "rule_unknown" } });

    // Revoked over HTTP: the open chat's next turn brings the change (its list empties) and the call asks.
    expect((await workerFetch(`/api/rules/${id}`, { method: "DELETE" }, "dave")).status).toBe(204);
    const at = other.received.length;
    await asks(other, `${sub}/all-c.txt`);
    expect(await listedWhere(other, at, (m) => (m.rules?.length ?? 0) === 0)).toEqual({ type: "always_allowed", tools: [] });
    expect((await workerFetch(`/api/rules/${id}`, { method: "DELETE" }, "dave")).status).toBe(404);
    other.close();
  });

  it(`are capped per person: the ${RULES_PER_USER + 1}st is refused and the question stays open; a revoke in the chat makes room`, async () => {
    const account = userAccount(env as unknown as Env, "token:carol");
    const filler = (i: number) => ({
      id: `filler-${i}-${crypto.randomUUID()}`,
      server: "nothing",
      tool: "never",
      arg: "path",
      kind: "path" as const,
      value: `filler${i}/`,
      scope: "all" as const,
      createdAt: i,
    });
    for (let i = 0; i < RULES_PER_USER; i++) expect((await account.addRule(filler(i))).ok).toBe(true);

    const sub = `${root}/sub`;
    await script(llm, KEY, write(`${sub}/cap.txt`, "c1"));
    const socket = await openSession(crypto.randomUUID(), "carol");
    const from = send(socket, "write");
    const request = (await socket.next(is("approval_request"), from)) as Message<"approval_request">;
    const answer = { type: "approval", callId: request.callId, approved: true, rule: { arg: "path", kind: "path", value: `${sub}/`, scope: "all" } } as const;
    const refusedAt = socket.received.length;
    socket.send(answer);
    expect(await socket.next(is("error"), refusedAt)).toMatchObject({ code: "too_many_rules" });

    // One of carol's rules for all chats revoked from this chat: the list shrinks, the same answer is kept now.
    const full = await listedWhere(socket, 0, (m) => (m.rules?.length ?? 0) === RULES_PER_USER);
    const revokedAt = socket.received.length;
    socket.send({ type: "revoke_rule", id: full.rules?.[0]?.id ?? "" });
    await listedWhere(socket, revokedAt, (m) => (m.rules?.length ?? 0) === RULES_PER_USER - 1);
    socket.send(answer);
    const { end, messages } = await socket.turnEnd(from);
    expect(end.reason).toBe("complete");
    expect(messages).toContainEqual({ type: "approval_resolved", callId: request.callId, approved: true });
    const kept = await account.listRules();
    expect(kept.some((rule) => rule.server === "filesystem" && rule.value === `${sub}/`)).toBe(true);
    socket.close();
    // Carol's other tests, if any, start without these.
    for (const rule of kept) await account.deleteRule(rule.id);
  });
});
