// Who decided, and where, on each path to the audit trail (docs/audit.md's `by` and `via`):
// a shared chat's approver answering in their page is named (not the owner), and a member's
// message is asked for them; a question no
// one answered in time is `timed_out` with nobody named; AUDIT_RETENTION_DAYS=0 records
// nothing. (A notification's answer: tests/workers/push/actions.test.ts; a schedule's grant:
// schedules.test.ts; an app's call through /mcp: gateway/audit.test.ts.)
import { env as testEnv, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { Approvals, type SettingsStore } from "../../../src/approval/approvals";
import { type AuditRecord, personKey } from "../../../src/audit/record";
import type { Env } from "../../../src/config/env";
import { AuditSink } from "../../../src/session/audit-sink";
import { userAccount } from "../../../src/users/account";
import type { UserAccount } from "../../../src/users/UserAccount";
import { reply, script } from "../../fixtures/fake-llm-script";
import { frameOf, type Message } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");
const env = testEnv as unknown as Env;
const json = { "content-type": "application/json" };

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const person = (user: TestUser) => ({ key: personKey(`token:${user}`), name: user });

async function trail(user: TestUser, chat: string, count: number): Promise<AuditRecord[]> {
  const read = async () => ((await (await workerFetch(`/api/audit?session=${chat}`, {}, user)).json()) as { records: AuditRecord[] }).records.reverse();
  await expect.poll(async () => (await read()).length, { timeout: 15_000 }).toBe(count);
  return read();
}

/** Settings kept in memory: the store an Approvals reads its "always" list from (nothing is remembered here). */
function memoryStore(): SettingsStore {
  const values = new Map<string, unknown>();
  return { getSetting: <T>(key: string) => values.get(key) as T | undefined, setSetting: (key, value) => void values.set(key, value) };
}

describe("who decided, and where", () => {
  it("names a shared chat's approver who answered in their page, the owner when they answered, and who sent each message", async () => {
    await script(llm, KEY, [
      reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "deciders-1" }),
      reply.text("one"),
      reply.callReply("filesystem__get_file_info", { path: `${root}/notes.txt` }, { id: "deciders-2" }),
      reply.text("two"),
    ]);
    const chat = crypto.randomUUID();
    const bob = await openSession(chat, "bob");
    const invited = await workerFetch(
      `/sessions/${chat}/people`,
      { method: "POST", headers: json, body: JSON.stringify({ name: "frank", role: "approver" }) },
      "bob",
    );
    expect(invited.status).toBe(201);
    const frank = await openSession(chat, "frank");
    // The owner asks and the approver answers; then the approver asks and the owner answers.
    for (const [sender, answerer] of [
      [bob, frank],
      [frank, bob],
    ] as const) {
      const from = { sender: sender.received.length, answerer: answerer.received.length };
      sender.send({ type: "message", text: "look" });
      const asked = (await answerer.next(frameOf("approval_request"), from.answerer)) as Message<"approval_request">;
      answerer.send({ type: "approval", callId: asked.callId, approved: true });
      expect((await sender.turnEnd(from.sender)).end.reason).toBe("complete");
    }
    for (const socket of [bob, frank]) socket.close();
    const records = await trail("bob", chat, 2);
    expect(records.map((r) => [r.askedBy, r.decision])).toEqual([
      [
        { kind: "model", person: person("bob") },
        { how: "asked", answer: "allowed", by: person("frank"), via: "page" },
      ],
      [
        { kind: "model", person: person("frank") },
        { how: "asked", answer: "allowed", by: person("bob"), via: "page" },
      ],
    ]);
    // The trail is the owner's: the approver's own account has none of it.
    await trail("frank", chat, 0);
  });

  it("a question nobody answered in time is timed_out, naming nobody, in the owner's account", async () => {
    const chat = `deciders-${crypto.randomUUID()}`;
    const stub = env.CHAT_SESSION.get(env.CHAT_SESSION.idFromName(chat));
    await runInDurableObject(stub, async (_instance, state) => {
      // The session's own policy and trail, over this object's storage, with a question that waits 30 ms.
      const approvals = new Approvals({ required: true, alwaysAllow: () => [], store: memoryStore(), broadcast: () => undefined, waitMs: () => 30 });
      const call = { callId: "timed-1", server: "filesystem", tool: "write_file", arguments: { path: "notes/x.txt", content: "x" } };
      const decision = await approvals.decideTool(null, call, new AbortController().signal);
      expect(decision).toEqual({ allowed: false, how: "asked", answer: "timed_out" });
      const sink = new AuditSink({
        sql: state.storage.sql,
        chat: () => chat,
        owner: () => ({ id: "token:frank", name: "frank" }),
        retentionDays: () => 90,
        deliver: (owner, records, days) => userAccount(env, owner).appendAudit(records, days),
        waitUntil: (work) => state.waitUntil(work),
      });
      const now = Date.now();
      sink.add({ ...call, decision, turnId: null, askedBy: { kind: "model" }, at: now, endedAt: now, durationMs: 0, status: "denied" });
      await sink.flush();
      expect(sink.pending()).toBe(0);
    });
    const [record] = await trail("frank", chat, 1);
    expect(record?.decision).toEqual({ how: "asked", answer: "timed_out" });
    expect(record?.status).toBe("denied");
  });

  it("AUDIT_RETENTION_DAYS=0 records nothing: no outbox row, nothing sent, nothing kept by the account", async () => {
    const chat = `deciders-${crypto.randomUUID()}`;
    const stub = env.CHAT_SESSION.get(env.CHAT_SESSION.idFromName(chat));
    let sent = 0;
    const now = Date.now();
    const call = {
      callId: "off-1",
      server: "filesystem",
      tool: "write_file",
      arguments: { path: "a" },
      decision: { allowed: true, how: "config" as const },
      turnId: null,
      askedBy: { kind: "model" as const },
      at: now,
      endedAt: now,
      durationMs: 1,
      status: "ok" as const,
    };
    await runInDurableObject(stub, async (_instance, state) => {
      const sink = new AuditSink({
        sql: state.storage.sql,
        chat: () => chat,
        owner: () => ({ id: "token:frank", name: "frank" }),
        retentionDays: () => 0,
        deliver: async (owner, records, days) => {
          sent++;
          return userAccount(env, owner).appendAudit(records, days);
        },
        waitUntil: (work) => state.waitUntil(work),
      });
      sink.add(call);
      await sink.flush();
      expect(sink.pending()).toBe(0);
    });
    expect(sent).toBe(0);
    // Rows that reach the account with 0 days (a chat still running an older setting) are dropped there too.
    const record = { v: 1, id: `${chat}:off-2`, at: now, endedAt: now, chat, turnId: null, server: "s", tool: "t" } as const;
    const full = {
      ...record,
      askedBy: { kind: "model" },
      decision: { how: "config" },
      args: { bytes: 4, sha256: "0".repeat(64) },
      status: "ok",
      durationMs: 0,
    };
    const added = await runInDurableObject(userAccount(env, "token:frank"), (instance: UserAccount) => instance.appendAudit([full], 0));
    expect(added).toBe(0);
    await trail("frank", chat, 0);
    // The same row with days kept is taken: the refusal above was the setting's, not the row's.
    expect(await runInDurableObject(userAccount(env, "token:frank"), (instance: UserAccount) => instance.appendAudit([full], 90))).toBe(1);
    await trail("frank", chat, 1);
  });
});
