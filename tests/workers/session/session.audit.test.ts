// The audit trail in a real session (issue 40; docs/audit.md): the real filesystem server
// through the bridge, the fake model calling write_file. Every call that reached a decision
// becomes one record in the owner's account — who asked, who decided and how, sizes and
// SHA-256 of the arguments and the result, never their text — pruned by the account's
// alarm after AUDIT_RETENTION_DAYS and gone with Delete my data.
import { env as testEnv, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { canonicalJson, personKey, type AuditRecord } from "../../../src/audit/record";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import type { UserAccount } from "../../../src/users/UserAccount";
import { reply, script } from "../../fixtures/fake-llm-script";
import { ownDigest } from "../../fixtures/own-digest";
import { frameOf, type Message, type SessionClient } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const is = frameOf;
const DAY = 86_400_000;
const env = testEnv as unknown as Env;

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const account = (user: TestUser) => userAccount(env, `token:${user}`);

/** The owner's records of one chat, oldest first, once `count` of them arrived. */
async function recordsOf(user: TestUser, chat: string, count: number): Promise<AuditRecord[]> {
  const read = () => runInDurableObject(account(user), (instance: UserAccount) => instance.auditPage({ session: chat, limit: 100 }).records.reverse());
  await expect.poll(async () => (await read()).length, { timeout: 15_000 }).toBe(count);
  return read();
}

function write(path: string, content: string, id: string) {
  return [reply.callReply("filesystem__write_file", { path, content }, { id }), reply.text("done")];
}

async function answer(socket: SessionClient, frame: Omit<Message<"approval_request">, "type"> | undefined, approval: Record<string, unknown>) {
  if (!frame) throw new Error("no question");
  socket.send({ type: "approval", callId: frame.callId, ...approval } as never);
}

/** One turn; its one call's question answered with `approval` (no question when undefined). */
async function turn(socket: SessionClient, approval?: Record<string, unknown>): Promise<void> {
  const from = socket.received.length;
  socket.send({ type: "message", text: "write" });
  if (approval) await answer(socket, (await socket.next(is("approval_request"), from)) as Message<"approval_request">, approval);
  expect((await socket.turnEnd(from)).end.reason).toBe("complete");
}

describe("the audit trail", () => {
  it("records asked-allowed (by whom), denied, always and a rule, with the arguments' own hash and no argument text", async () => {
    const marker = `secret-marker-${crypto.randomUUID()}`;
    const sub = `${root}/sub`;
    const calls = [
      { path: `${sub}/audit-a.txt`, content: `${marker} one` },
      { path: `${sub}/audit-b.txt`, content: `${marker} two` },
      { path: `${sub}/audit-c.txt`, content: `${marker} three` },
      { path: `${sub}/audit-d.txt`, content: `${marker} four` },
    ];
    await script(llm, KEY, [...calls.flatMap((c, i) => write(c.path, c.content, `a${i}`))]);
    const chat = crypto.randomUUID();
    const socket = await openSession(chat);
    await turn(socket, { approved: true }); // asked, allowed
    await turn(socket, { approved: false }); // asked, denied
    await turn(socket, { approved: true, remember: true }); // asked, allowed, and always from now on
    await turn(socket); // always
    socket.close();

    const records = await recordsOf("alice", chat, 4);
    const alice = { key: personKey("token:alice"), name: "alice" };
    expect(records.map((r) => [r.decision, r.status])).toEqual([
      [{ how: "asked", answer: "allowed", by: alice, via: "page" }, "ok"],
      [{ how: "asked", answer: "denied", by: alice, via: "page" }, "denied"],
      [{ how: "asked", answer: "allowed", by: alice, via: "page" }, "ok"],
      [{ how: "always" }, "ok"],
    ]);
    records.forEach((r, i) => {
      expect(r).toMatchObject({ v: 1, chat, server: "filesystem", tool: "write_file", askedBy: { kind: "model", person: alice } });
      expect(r.args).toEqual(ownDigest(calls[i]));
      expect(r.endedAt).toBeGreaterThanOrEqual(r.at);
    });
    expect(records[0]?.result?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(records[1]?.result).toBeUndefined();
    expect(JSON.stringify(records)).not.toContain(marker);
    expect(JSON.stringify(records)).not.toContain(sub);
    // The chat's outbox was emptied into the account.
    await expect.poll(() => runInDurableObject(env.CHAT_SESSION.get(env.CHAT_SESSION.idFromName(chat)), (_o, state) => outboxRows(state))).toBe(0);
  });

  it("records a rule's id and text, and a console call as asked by the person, with the result's own hash", async () => {
    const sub = `${root}/sub`;
    await script(llm, KEY, [...write(`${sub}/audit-r1.txt`, "x", "b1"), ...write(`${sub}/audit-r2.txt`, "y", "b2")]);
    const chat = crypto.randomUUID();
    const socket = await openSession(chat);
    await turn(socket, { approved: true, rule: { arg: "path", kind: "path", value: `${sub}/`, scope: "chat" } });
    await turn(socket); // the rule allows it
    socket.close();

    const args = { path: `${root}/console-audit.txt`, content: "from the console" };
    const response = await workerFetch("/api/tools/filesystem.write_file", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: args, sessionId: chat, approved: true }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: unknown };

    const records = await recordsOf("alice", chat, 3);
    expect(records[1]?.decision).toEqual({ how: "rule", ruleId: expect.any(String), ruleText: `filesystem.write_file when path is under ${sub}/` });
    const consoleCall = records[2];
    expect(consoleCall).toMatchObject({
      turnId: null,
      askedBy: { kind: "person", person: { name: "alice" } },
      decision: { how: "asked", answer: "allowed", by: { name: "alice" }, via: "page" },
      status: "ok",
      args: ownDigest(args),
      result: ownDigest(body.result),
    });
    expect(canonicalJson(args)).not.toBe(JSON.stringify(args)); // the keys were out of order: the sort mattered
  });

  it("prunes rows past AUDIT_RETENTION_DAYS on the account's alarm, keeps newer ones, and re-arms", async () => {
    await script(llm, KEY, [...write(`${root}/audit-old.txt`, "o", "c1"), ...write(`${root}/audit-new.txt`, "n", "c2")]);
    const chat = crypto.randomUUID();
    const socket = await openSession(chat, "carol");
    await turn(socket, { approved: true });
    await turn(socket, { approved: true });
    socket.close();
    const [old, kept] = await recordsOf("carol", chat, 2);
    // Time moves: the first row is made 91 days old in the account's own SQLite.
    await runInDurableObject(account("carol"), async (_instance, state) => {
      state.storage.sql.exec("UPDATE audit SET at = ? WHERE id = ?", Date.now() - 91 * DAY, old?.id);
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
    expect(await runDurableObjectAlarm(account("carol"))).toBe(true);
    const left = await recordsOf("carol", chat, 1);
    expect(left.map((r) => r.id)).toEqual([kept?.id]);
    // Re-armed for when the kept row expires (90 days after it was made).
    const alarm = await runInDurableObject(account("carol"), (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now() + 89 * DAY);
  });

  it("is emptied by Delete my data", async () => {
    await script(llm, KEY, write(`${root}/audit-gone.txt`, "g", "d1"));
    const chat = crypto.randomUUID();
    const socket = await openSession(chat, "dave");
    await turn(socket, { approved: true });
    socket.close();
    await recordsOf("dave", chat, 1);
    const gone = await workerFetch("/api/account", { method: "DELETE" }, "dave");
    expect(gone.status).toBe(200);
    expect(await runInDurableObject(account("dave"), (instance: UserAccount) => instance.auditPage({ limit: 100 }).records)).toEqual([]);
  });
});

function outboxRows(state: DurableObjectState): number {
  return state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM audit_outbox").one().n;
}
