// A turn holds its worst-case tokens against the daily budget before it starts and
// settles the real count after (issue 20.5): turns started together cannot pass the
// budget by more than one turn's worth, and a hold that is never settled expires.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { HOLD_MS } from "../../../src/users/reservations";

const bindings = env as unknown as Env;
const limits = { perMinute: 600, burst: 100, dailyTokens: 1000 };
const fresh = () => userAccount(bindings, `token:holds-${crypto.randomUUID()}`);

describe("budget holds", () => {
  it("admits ten parallel turns of 800 tokens against a budget of 1,000 only while the budget has room", async () => {
    const account = fresh();
    const begun = await Promise.all(Array.from({ length: 10 }, (_, i) => account.beginTurn(limits, undefined, 0, { id: `t${i}`, tokens: 800 })));
    const admitted = begun.filter((b) => b.decision.ok).length;
    // The first holds 800, the second the 200 left; the rest find nothing left: at most 1,600 can be spent.
    expect(admitted).toBe(2);
    expect(begun.filter((b) => !b.decision.ok).map((b) => b.decision)).toEqual(
      Array(8).fill(expect.objectContaining({ code: "budget_exhausted", message: expect.stringContaining("still running hold") })),
    );
  });

  it("frees a hold when its turn reports, and counts the real tokens instead", async () => {
    const account = fresh();
    expect((await account.beginTurn(limits, undefined, 0, { id: "a", tokens: 1000 })).decision.ok).toBe(true);
    expect((await account.beginTurn(limits, undefined, 0, { id: "b", tokens: 1000 })).decision.ok).toBe(false);
    // "a" used 300 of its 1,000: the next turn of the same session settles it and holds again.
    expect((await account.beginTurn(limits, undefined, 300, { id: "a2", tokens: 500, release: "a" })).decision.ok).toBe(true);
    expect(await account.tokensUsed()).toBe(300);
    expect((await account.beginTurn(limits, undefined, 0, { id: "c", tokens: 500 })).decision.ok).toBe(true);
    expect((await account.beginTurn(limits, undefined, 0, { id: "d", tokens: 1 })).decision.ok).toBe(false);
    await account.addUsage(100, "a2");
    await account.addUsage(150, "c");
    expect((await account.beginTurn(limits, undefined, 0, { id: "e", tokens: 1 })).decision.ok).toBe(true);
  });

  it("lets a hold go when its turn never reports (the session crashed)", async () => {
    const account = fresh();
    const now = Date.now();
    expect((await account.beginTurn(limits, undefined, 0, { id: "lost", tokens: 1000 }, now)).decision.ok).toBe(true);
    expect((await account.beginTurn(limits, undefined, 0, { id: "next", tokens: 10 }, now + 1000)).decision.ok).toBe(false);
    expect((await account.beginTurn(limits, undefined, 0, { id: "later", tokens: 10 }, now + HOLD_MS + 1)).decision.ok).toBe(true);
  });

  it("holds a sampling answer's worst case too, and refuses one that does not fit", async () => {
    const account = fresh();
    expect(await account.holdSampling("s1", 900, 1000)).toBeUndefined();
    expect(await account.holdSampling("s2", 900, 1000)).toBeUndefined();
    expect(await account.holdSampling("s3", 10, 1000)).toBe("the user's daily model budget of 1000 tokens is used up");
    expect((await account.beginTurn(limits, undefined, 0, { id: "t", tokens: 10 })).decision.ok).toBe(false);
    await account.addUsage(50, "s1");
    await account.addUsage(50, "s2");
    expect((await account.beginTurn(limits, undefined, 0, { id: "t", tokens: 10 })).decision.ok).toBe(true);
  });
});
