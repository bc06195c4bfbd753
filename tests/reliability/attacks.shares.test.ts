// Shared links are bounded (issue 33), on the real stack in AUTH_MODE=token with two
// people: each link is a Durable Object holding a snapshot of up to 1.5 MB, so one person
// flooding link creation gets SHARES_PER_SESSION (10) per chat and then the rate, and the
// other person is not affected.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../fixtures/raw-http";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const ALICE = "alice-token-shares-0123456789ab";
const BOB = "bob-token-shares-0123456789abcd";
const as = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ model: false, vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}` } });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

const newChat = async (token: string) => (await raw(stack.url, "/sessions", { method: "POST", headers: as(token), body: "{}" })).json().id as string;
const share = (token: string, chat: string) => raw(stack.url, `/sessions/${chat}/shares`, { method: "POST", headers: as(token), body: "{}" });
const links = async (token: string, chat?: string) =>
  ((await raw(stack.url, `/api/shares${chat ? `?session=${chat}` : ""}`, { headers: as(token) })).json().shares as { id: string; url: string }[]) ?? [];
const errorOf = (answer: { json(): Record<string, unknown> }) => answer.json().error as { code: string; message: string; retryAfterMs?: number };

describe("shared links", () => {
  it(
    "are capped per chat and made at a rate, counted atomically",
    attackCase(
      "Share links flooded (issue 33)",
      "alice asks for 60 links to one chat at once, then one for another chat; bob shares his own chat meanwhile (before the fix: 60 × 201, each an object of up to 1.5 MB)",
      async () => {
        const [first, second, bobs] = await Promise.all([newChat(ALICE), newChat(ALICE), newChat(BOB)]);
        const flood = await Promise.all(Array.from({ length: 60 }, () => share(ALICE, first)));
        const made = flood.filter((a) => a.status === 201).length;
        const capped = flood.filter((a) => a.status === 409);
        expect([made, capped.length]).toEqual([10, 50]);
        expect(capped[0] && errorOf(capped[0])).toMatchObject({ code: "too_many_shares", message: expect.stringContaining("revoke one first") });
        // Nothing past the cap exists: ten listed, each showing its snapshot.
        const listed = await links(ALICE, first);
        expect(listed).toHaveLength(10);
        const views = await Promise.all(listed.map(async (l) => (await raw(stack.url, l.url, { headers: as(BOB) })).status));
        expect(views).toEqual(Array(10).fill(200));
        // The ten spent the burst: another chat waits for the rate, and gets no link.
        const throttled = await share(ALICE, second);
        expect(throttled.status).toBe(429);
        const refusal = errorOf(throttled);
        expect(refusal).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/^Too many shared links: try again in \d+ s\.$/) });
        expect(refusal.retryAfterMs).toBeGreaterThan(0);
        expect(await links(ALICE, second)).toEqual([]);
        // Bob is not affected, and sees none of alice's links.
        expect((await share(BOB, bobs)).status).toBe(201);
        expect((await links(BOB)).map((l) => l.id)).not.toContain(listed[0]?.id);
        return {
          tried: 62,
          figure: `60 at once for one chat: ${made} × 201, ${capped.length} × 409 too_many_shares, 10 listed and shown; next chat 429 rate_limited (retry in ${Math.ceil((refusal.retryAfterMs ?? 0) / 1000)} s); bob's share 201`,
        };
      },
    ),
  );
});
