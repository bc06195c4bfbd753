// The daily budget under a burst (issue 20.5), on the real stack: with DAILY_TOKEN_BUDGET
// 1,000, one user starts ten turns of 800 tokens at once in ten sessions. Before turns held
// their worst case, all ten ran (about 8,000 tokens).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { openSession } from "../fixtures/session-client-node";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const ALICE = "alice-token-budget-0123456789ab";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE}`, DAILY_TOKEN_BUDGET: "1000", TURN_TOKEN_RESERVATION: "800", RATE_LIMIT_BURST: "50" },
  });
});
afterAll(async () => {
  await stack?.stop();
});

describe("the daily budget", () => {
  it(
    "holds against ten turns started at once",
    attackCase(
      "The daily budget overshot by a burst (issue 20.5)",
      "DAILY_TOKEN_BUDGET=1000: ten turns of 800 tokens each started at once in ten sessions of one user (before the fix: all ten ran, about 8,000 tokens)",
      async () => {
        await script(
          stack.llm.url,
          stack.llmKey,
          Array.from({ length: 10 }, () => reply.stream(["ok"], { usage: { input: 700, output: 100 } })),
        );
        const sockets = await Promise.all(
          Array.from({ length: 10 }, () => openSession(stack.url, crypto.randomUUID(), { headers: { authorization: `Bearer ${ALICE}` } })),
        );
        const outcomes = await Promise.all(
          sockets.map(async (socket) => {
            const from = socket.say("spend");
            const first = await socket.next((m) => m.type === "turn_end" || (m.type === "error" && !m.turnId), from, 30_000);
            return first.type === "turn_end" ? "ran" : first.type === "error" ? first.code : "?";
          }),
        );
        for (const socket of sockets) socket.close();
        const ran = outcomes.filter((o) => o === "ran").length;
        expect(ran).toBeLessThanOrEqual(2);
        expect(outcomes.filter((o) => o === "budget_exhausted")).toHaveLength(10 - ran);
        return {
          tried: 10,
          figure: `${ran} of 10 ran (${ran * 800} tokens of a 1,000 budget: over by less than one turn), ${10 - ran} refused budget_exhausted`,
        };
      },
    ),
  );
});
