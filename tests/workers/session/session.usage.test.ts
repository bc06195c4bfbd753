// A turn's model tokens reach the owner's daily figure with the session's next turn
// (one call to the account per turn) or on their own soon after, and survive a
// restart in between: the real ChatSession and UserAccount objects, the fake Gemini
// reporting usage.
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it, vi } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { bucketKey } from "../../../src/users/spend-ledger";
import { reply, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { openSession } from "../worker-fetch";

const bindings = env as unknown as Env;
const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const USER = "carol";
const account = () => userAccount(bindings, `token:${USER}`);
const REPORTED_WITHIN_MS = 10_000;

async function send(socket: SessionClient, text: string) {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return socket.next((m) => m.type === "turn_end" || (m.type === "error" && !("turnId" in m && m.turnId)), from);
}

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
  // Carol starts with nothing spent today and a full bucket.
  await runInDurableObject(account(), async (_instance, state) => {
    state.storage.sql.exec("DELETE FROM usage");
    await state.storage.delete([bucketKey("turn"), bucketKey("call")]);
  });
});

describe("a turn's tokens in the user's daily figure", () => {
  it("are counted when the session's next turn is admitted", async () => {
    await script(llm, KEY, [reply.stream(["one"], { usage: { input: 40, output: 2 } }), reply.stream(["two"], { usage: { input: 5, output: 1 } })]);
    const socket = await openSession(crypto.randomUUID(), USER);
    expect(await send(socket, "first")).toMatchObject({ type: "turn_end", usage: { inputTokens: 40, outputTokens: 2 } });
    const from = socket.received.length;
    socket.send({ type: "message", text: "second" });
    await socket.next((m) => m.type === "turn_start", from);
    expect(await account().tokensUsed()).toBeGreaterThanOrEqual(42);
    await socket.turnEnd(from);
    socket.close();
  });

  it("refuse the next turn once a turn spent the whole daily budget", async () => {
    const budget = Number(bindings.DAILY_TOKEN_BUDGET);
    await script(llm, KEY, [reply.stream(["costly"], { usage: { input: budget, output: 1 } }), reply.stream(["never"])]);
    const socket = await openSession(crypto.randomUUID(), USER);
    expect(await send(socket, "spend it all")).toMatchObject({ type: "turn_end", reason: "complete" });
    const refused = await send(socket, "one more");
    expect(refused).toMatchObject({ type: "error", code: "budget_exhausted" });
    socket.close();
  });

  it("are reported on their own when no turn follows, even across a restart of the session", async () => {
    await script(llm, KEY, [reply.stream(["alone"], { usage: { input: 30, output: 3 } })]);
    const id = crypto.randomUUID();
    const socket = await openSession(id, USER);
    expect(await send(socket, "only one")).toMatchObject({ type: "turn_end", usage: { inputTokens: 30, outputTokens: 3 } });
    socket.close();
    // Every object restarts before the report is due: the figure was kept with the turn.
    await abortAllDurableObjects();
    const again = await openSession(id, USER);
    await vi.waitFor(async () => expect(await account().tokensUsed()).toBe(33), { timeout: REPORTED_WITHIN_MS, interval: 100 });
    again.close();
  });
});
