// Delete my data is final (issue 33), on the real stack in AUTH_MODE=token (wrangler dev,
// the fake Gemini): alice starts a turn, uploads a 9-byte file, imports a conversation and
// shares her chat while she deletes her data, ten rounds. Before the fix a chat, a search
// hit and the readable file were left behind now and then; now each write either finished
// before the erase (and went with it) or was refused `account_erasing`, nothing is left,
// bob's chat is untouched, and alice starts afresh afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply, script } from "../fixtures/fake-llm-script";
import { raw, type RawResponse } from "../fixtures/raw-http";
import { openSession } from "../fixtures/session-client-node";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const ALICE = "alice-token-erase-0123456789abcd";
const BOB = "bob-token-erase-0123456789abcdef";
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const json = { "content-type": "application/json" };
const ROUNDS = 10;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}`, SHARE_BURST: "100", UPLOAD_BURST: "100" } });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

const as = (token: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  raw(stack.url, path, { ...init, headers: { ...auth(token), ...init.headers } });
const list = async (token: string, path: string, key: string) =>
  (as(token, path).then((r) => r.json()) as Promise<Record<string, unknown[]>>).then((b) => b[key] ?? []);

/** A write's outcome: done (2xx), or refused with its code. */
const outcomeOf = (response: RawResponse) =>
  response.status < 300 ? "done" : ((response.json() as { error?: { code?: string } }).error?.code ?? String(response.status));

describe("Delete my data", () => {
  it(
    "leaves nothing of the writes racing it",
    attackCase(
      "Delete my data racing a starting turn, an upload, an import and a share (issue 33)",
      `${ROUNDS} rounds, alice and bob signed in: alice's turn, 9-byte upload, import and share sent together with her Delete my data (before the fix: now and then a chat, a search hit and a readable file were left)`,
      async () => {
        const bobChat = crypto.randomUUID();
        (await openSession(stack.url, bobChat, { headers: auth(BOB) })).close();
        const outcomes: Record<string, number> = {};
        for (let round = 0; round < ROUNDS; round++) {
          const chat = crypto.randomUUID();
          const socket = await openSession(stack.url, chat, { headers: auth(ALICE) });
          // A turn admitted before the erase hangs at the model until the erase cancels it.
          await script(stack.llm.url, stack.llmKey, [reply.hang()]);
          socket.say(`turnword${round} hello`);
          const writes = await Promise.all([
            as(ALICE, `/sessions/${chat}/files`, {
              method: "POST",
              headers: { "content-type": "application/octet-stream", "x-file-name": "note.txt", "x-file-type": "text/plain" },
              body: "ninebytes",
            }),
            as(ALICE, "/api/import", {
              method: "POST",
              headers: json,
              body: JSON.stringify({ sessions: [{ title: `importword${round}`, entries: [{ kind: "user", text: `importword${round}` }] }] }),
            }),
            as(ALICE, `/sessions/${chat}/shares`, { method: "POST", headers: json, body: "{}" }),
            as(ALICE, "/api/account", { method: "DELETE", headers: json, body: "{}" }),
          ]);
          const [uploaded, imported, shared, erased] = writes as [RawResponse, RawResponse, RawResponse, RawResponse];
          expect(erased.status).toBe(200);
          await socket.closed;
          await fetch(`${stack.llm.url}/__script/${encodeURIComponent(stack.llmKey)}`, { method: "DELETE" });
          for (const [what, response] of Object.entries({ uploaded, imported, shared })) {
            const outcome = outcomeOf(response);
            expect(["done", "account_erasing", "not_found"]).toContain(outcome);
            outcomes[`${what} ${outcome}`] = (outcomes[`${what} ${outcome}`] ?? 0) + 1;
          }
          expect(await list(ALICE, "/api/sessions", "sessions")).toEqual([]);
          for (const word of [`turnword${round}`, `importword${round}`]) expect(await list(ALICE, `/api/search?q=${word}`, "results")).toEqual([]);
          expect(await list(ALICE, "/api/shares", "shares")).toEqual([]);
          if (uploaded.status === 201) {
            const id = (uploaded.json() as { file: { id: string } }).file.id;
            expect((await as(ALICE, `/api/files/${id}`)).status).toBe(404);
          }
          if (shared.status === 201) expect((await as(BOB, (shared.json() as { url: string }).url)).status).toBe(404);
          expect((await as(ALICE, `/sessions/${chat}/history`).then((r) => r.json())) as { entries: unknown[] }).toMatchObject({ entries: [] });
        }
        // Bob's chat is his still; alice starts afresh on an empty account.
        expect((await list(BOB, "/api/sessions", "sessions")).length).toBe(1);
        const fresh = await as(ALICE, "/sessions", { method: "POST", headers: json, body: "{}" });
        expect(fresh.status).toBe(201);
        expect(await list(ALICE, "/api/sessions", "sessions")).toHaveLength(1);
        const summary = Object.entries(outcomes)
          .sort()
          .map(([k, n]) => `${k} ${n}`)
          .join(", ");
        return { tried: ROUNDS * 4, figure: `${ROUNDS} rounds: nothing left after any (${summary}); bob untouched, alice starts afresh` };
      },
    ),
    180_000,
  );
});
