// Spend is bounded per user, across all their sessions and across restarts: the
// UserAccount object's durable counters, consulted by every session of the user.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { bucketKey } from "../../../src/users/spend-ledger";
import { openSession, workerFetch } from "../worker-fetch";

const bindings = env as unknown as Env;

describe("per-user spend", () => {
  it("limits a user's rate with a bucket that survives a restart", async () => {
    const user = `token:rate-${crypto.randomUUID()}`;
    const account = userAccount(bindings, user);
    const limits = { perMinute: 1, burst: 2 };
    expect(await account.admit("turn", limits)).toEqual({ ok: true });
    expect(await account.admit("turn", limits)).toEqual({ ok: true });
    const third = await account.admit("turn", limits);
    expect(third).toMatchObject({ ok: false, code: "rate_limited" });
    expect((third as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(50_000);
    // Direct calls have a bucket of their own.
    expect(await account.admit("call", limits)).toEqual({ ok: true });
    await abortAllDurableObjects();
    expect(await userAccount(bindings, user).admit("turn", limits)).toMatchObject({ ok: false, code: "rate_limited" });
  });

  it("admits the same count of messages sent at once as one by one, per user, and keeps it across a restart", async () => {
    // The bucket is written after each answer (SpendLedger.keep): admissions queued in the same
    // instant must still each see the one before, or a burst at once would pass the limit.
    const users = [`token:burst-${crypto.randomUUID()}`, `token:burst-${crypto.randomUUID()}`];
    const limits = { perMinute: 1, burst: 3 };
    const decisions = await Promise.all(
      Array.from({ length: 16 }, (_, i) => userAccount(bindings, users[i % 2] ?? "").admit(i % 4 < 2 ? "turn" : "call", limits)),
    );
    const admitted = (user: number, kind: number) => decisions.filter((d, i) => i % 2 === user && (i % 4 < 2 ? 0 : 1) === kind && d.ok).length;
    // Each user's turns and calls have their own bucket of 3: 4 asked each, 3 admitted each.
    expect([admitted(0, 0), admitted(0, 1), admitted(1, 0), admitted(1, 1)]).toEqual([3, 3, 3, 3]);
    // The write follows the answers by a macrotask (a crash in that instant may lose its counts):
    // once stored, the empty buckets outlive a restart.
    const stored = (user: string) =>
      runInDurableObject(userAccount(bindings, user), async (_instance, state) =>
        (await state.storage.get<{ tokens: number }[]>([bucketKey("turn"), bucketKey("call")])).size === 2 ? "both" : "not yet",
      );
    for (const user of users) {
      for (let i = 0; i < 100 && (await stored(user)) !== "both"; i++);
      expect(await stored(user)).toBe("both");
    }
    await abortAllDurableObjects();
    for (const user of users) {
      expect(await userAccount(bindings, user).admit("turn", limits)).toMatchObject({ ok: false, code: "rate_limited" });
      expect(await userAccount(bindings, user).admit("call", limits)).toMatchObject({ ok: false, code: "rate_limited" });
    }
  });

  it("refuses turns in every session of a user whose bucket is empty, and not other users' turns", async () => {
    const carol = userAccount(bindings, "token:carol");
    // Carol has used her messages: the bucket is empty and refills nothing for the next hour.
    await runInDurableObject(carol, async (_instance, state) => {
      await state.storage.put(bucketKey("turn"), { tokens: 0, at: Date.now() + 3_600_000 });
    });
    for (const id of [crypto.randomUUID(), crypto.randomUUID()]) {
      const socket = await openSession(id, "carol");
      const from = socket.received.length;
      socket.send({ type: "message", text: "hello" });
      const error = await socket.next((m) => m.type === "error", from);
      expect(error).toMatchObject({ type: "error", code: "rate_limited" });
      expect(Number(/try again in (\d+) s/.exec((error as { message: string }).message)?.[1])).toBeGreaterThan(3_500);
      socket.close();
      // Refused before anything was recorded.
      expect(((await (await workerFetch(`/sessions/${id}/history`, {}, "carol")).json()) as { entries: unknown[] }).entries).toEqual([]);
    }
    const direct = await workerFetch(
      "/api/tools/filesystem.list_directory",
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ arguments: { path: "/" } }) },
      "bob",
    );
    expect(direct.status).not.toBe(429);
  });

  it("stops new turns once the daily token budget is used, with a clear message", async () => {
    const user = "token:carol";
    await runInDurableObject(userAccount(bindings, user), async (_instance, state) => {
      await state.storage.delete([bucketKey("turn"), bucketKey("call")]);
    });
    const used = await userAccount(bindings, user).addUsage(Number(bindings.DAILY_TOKEN_BUDGET));
    expect(used).toBeGreaterThanOrEqual(Number(bindings.DAILY_TOKEN_BUDGET));
    const socket = await openSession(crypto.randomUUID(), "carol");
    const from = socket.received.length;
    socket.send({ type: "message", text: "hello" });
    const error = await socket.next((m) => m.type === "error", from);
    expect(error).toMatchObject({ type: "error", code: "budget_exhausted" });
    expect((error as { message: string }).message).toMatch(/daily model budget of \d+ tokens is used up; it renews at 00:00 UTC/);
    socket.close();
  });
});
