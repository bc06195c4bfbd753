// Delete my data is final (issue 33), in real workerd with its R2 bucket: writes that race
// the erase (a starting turn, an upload, an import, a share) leave nothing behind (no chat,
// no search hit, no stored file, no live link); writes admitted just before it are waited
// for and deleted with the rest; writes during it get `account_erasing`; afterwards the
// person starts afresh with an empty account.
import { env, runInDurableObject } from "cloudflare:test";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { ownerPrefix } from "../../../src/files/store";
import { tokenUserId } from "../../../src/identity/tokens";
import { userAccount } from "../../../src/users/account";
import { reply, script } from "../../fixtures/fake-llm-script";
import { openSession, workerFetch } from "../worker-fetch";

// A user of its own: this file erases the account again and again while other files run theirs.
const USER = "frank";
const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const bucket = (env as unknown as Env).FILES as R2Bucket;
const json = { "content-type": "application/json" };
const NINE_BYTES = "ninebytes";

type Refusal = { error: { code: string; message: string } };

const newSession = async () => ((await (await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" }, USER)).json()) as { id: string }).id;
const rename = (id: string, title: string) => workerFetch(`/sessions/${id}`, { method: "PATCH", headers: json, body: JSON.stringify({ title }) }, USER);
const upload = (session: string, body: BodyInit) =>
  workerFetch(
    `/sessions/${session}/files`,
    { method: "POST", headers: { "content-type": "application/octet-stream", "x-file-name": "note.txt", "x-file-type": "text/plain" }, body },
    USER,
  );
const importOne = (body: BodyInit) => workerFetch("/api/import", { method: "POST", headers: json, body }, USER);
const conversation = (word: string) =>
  JSON.stringify({
    sessions: [
      {
        title: word,
        entries: [
          { kind: "user", text: `${word} asks` },
          { kind: "assistant", text: "fine" },
        ],
      },
    ],
  });
const share = (session: string) => workerFetch(`/sessions/${session}/shares`, { method: "POST" }, USER);
const erase = () => workerFetch("/api/account", { method: "DELETE" }, USER);

/** What the account still has that anyone could see. */
async function leftovers(words: string[]) {
  const sessions = ((await (await workerFetch("/api/sessions", {}, USER)).json()) as { sessions: unknown[] }).sessions;
  const hits = [];
  for (const word of words) hits.push(...((await (await workerFetch(`/api/search?q=${word}`, {}, USER)).json()) as { results: unknown[] }).results);
  const shares = ((await (await workerFetch("/api/shares", {}, USER)).json()) as { shares: unknown[] }).shares;
  const stored = (await bucket.list({ prefix: await ownerPrefix(tokenUserId(USER)) })).objects.length;
  return { sessions: sessions.length, hits: hits.length, shares: shares.length, stored };
}
const NOTHING = { sessions: 0, hits: 0, shares: 0, stored: 0 };

const history = async (id: string) => ((await (await workerFetch(`/sessions/${id}/history`, {}, USER)).json()) as { entries: unknown[] }).entries;

/** Each round spends uploads and shares: their rates (kept across an erase, as the budget is) start full. */
async function refillRates(): Promise<void> {
  await runInDurableObject(userAccount(env as unknown as Env, tokenUserId(USER)), (_instance, state) =>
    state.storage.delete(["bucket:upload", "bucket:share"]),
  );
}

/** A write's outcome: its status and, when refused, its code. */
async function outcome(response: Response): Promise<{ status: number; code?: string; body?: unknown }> {
  const body = (await response.json()) as unknown;
  return response.ok ? { status: response.status, body } : { status: response.status, code: (body as Refusal).error.code };
}

/** Resolves once the erase's mark is on: a harmless write (renaming no session) answers account_erasing instead of 404. */
async function markedErasing(): Promise<boolean> {
  for (let probe = 0; probe < 500; probe++) {
    const answer = await rename("no-such-session", "x");
    const code = ((await answer.json()) as Refusal).error.code;
    if (code === "account_erasing") return true;
  }
  return false;
}

afterAll(async () => {
  // Hanging replies a refused turn never asked for must not reach the next file's turns.
  await fetch(`${llm}/__script/${encodeURIComponent(KEY)}`, { method: "DELETE" });
});

describe("Delete my data is final", () => {
  it("refuses writes while it runs, waits for the ones admitted before it, and leaves nothing of them", async () => {
    await refillRates();
    const session = await newSession();
    await rename(session, "heldchat");
    // A turn running when the erase begins (its model answer hangs), in a chat of its own.
    const running = await newSession();
    const runningSocket = await openSession(running, USER);
    await script(llm, KEY, [reply.hang()]);
    const from = runningSocket.say("runningturn hello");
    await runningSocket.next((m) => m.type === "turn_start", from);
    const idleSocket = await openSession(session, USER);
    const heldUpload = new TransformStream<Uint8Array, Uint8Array>();
    const heldImport = new TransformStream<Uint8Array, Uint8Array>();
    const uploading = upload(session, heldUpload.readable);
    const importing = importOne(heldImport.readable);
    // Both requests admitted and waiting for their bodies: each holds a lease on the account, and the
    // upload has also passed its own admission (its rate, taken before the body is read; a lease
    // alone is not that: an erase beginning between the two refuses the upload, rightly).
    const account = userAccount(env as unknown as Env, tokenUserId(USER));
    const admitted = () =>
      runInDurableObject(account, async (_i, state) => ({
        leases: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM write_leases").one().n,
        uploadAdmitted: (await state.storage.get("bucket:upload")) !== undefined,
      }));
    const both = { leases: 2, uploadAdmitted: true };
    for (let i = 0; i < 500 && JSON.stringify(await admitted()) !== JSON.stringify(both); i++);
    expect(await admitted()).toEqual(both);
    const erasing = erase();
    expect(await markedErasing()).toBe(true);
    // A write arriving now is refused, with a typed error saying why.
    const late = await outcome(await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" }, USER));
    expect(late).toEqual({ status: 409, code: "account_erasing" });
    // So is a turn: its admission says why on the socket.
    const refusedFrom = idleSocket.say("refusedturn hello");
    expect(await idleSocket.next((m) => m.type === "error", refusedFrom)).toMatchObject({ code: "account_erasing" });
    // The bodies arrive only now: the erase waits for both (before the fix it had already ended, and both outlived it).
    const upWriter = heldUpload.writable.getWriter();
    await upWriter.write(new TextEncoder().encode(NINE_BYTES));
    await upWriter.close();
    const imWriter = heldImport.writable.getWriter();
    await imWriter.write(new TextEncoder().encode(conversation("heldimport")));
    await imWriter.close();
    // Admitted before the erase, they finish, and the erase deletes what they stored once they have.
    expect((await uploading).status).toBe(201);
    expect((await importing).status).toBe(201);
    expect((await erasing).status).toBe(200);
    // The running turn was cancelled and waited for: nothing of it is left in its chat either.
    await runningSocket.closed;
    expect(await history(running)).toEqual([]);
    expect(await leftovers(["heldchat", "heldimport", "runningturn", "refusedturn"])).toEqual(NOTHING);
    // Afterwards the person starts afresh: writes are open again, on an empty account.
    const fresh = await newSession();
    expect((await upload(fresh, NINE_BYTES)).status).toBe(201);
    expect((await leftovers([])).sessions).toBe(1);
    expect((await erase()).status).toBe(200);
  });

  it("forgets OAuth registrations and sign-ins in progress, so none completes after it", async () => {
    const account = userAccount(env as unknown as Env, tokenUserId(USER));
    await runInDurableObject(account, (instance) => {
      instance.oauthSave("remote", { serverUrl: "https://mcp.example/mcp", redirectUri: "https://edgehost.test/oauth/callback" });
      instance.oauthStartSignIn("state-before-erase", "remote", "some-session");
    });
    expect((await erase()).status).toBe(200);
    await runInDurableObject(account, (instance) => {
      expect(instance.oauthLoad("remote")).toBeUndefined();
      expect(instance.oauthTakeSignIn("state-before-erase")).toBeUndefined();
    });
  });

  it("leaves no chat, search hit, file or link of a turn, an upload, an import and a share racing it, 20 rounds", async () => {
    const seen: Record<string, number> = {};
    for (let round = 0; round < 20; round++) {
      await refillRates();
      const session = await newSession();
      await rename(session, `chat${round}`);
      const socket = await openSession(session, USER);
      // Should the turn start before the erase, its model answer hangs until the erase cancels it.
      await script(llm, KEY, [reply.hang()]);
      // All at once: the writes first, then the erase, none awaited.
      socket.say(`turnword${round} hello`);
      const writes = [upload(session, NINE_BYTES), importOne(conversation(`importword${round}`)), share(session)] as const;
      const erased = erase();
      // All in flight already: their answers are read in turn.
      const uploaded = await outcome(await writes[0]);
      const imported = await outcome(await writes[1]);
      const shared = await outcome(await writes[2]);
      expect((await erased).status).toBe(200);
      // The erase deleted the chat: its socket is closed.
      await socket.closed;
      await fetch(`${llm}/__script/${encodeURIComponent(KEY)}`, { method: "DELETE" });
      for (const [what, result] of Object.entries({ uploaded, imported, shared })) {
        // Done before the erase (then deleted by it), or refused during it; a share of the chat already deleted is 404.
        expect([201, 409, 404]).toContain(result.status);
        if (result.status !== 201) expect(result.code).toBe(result.status === 409 ? "account_erasing" : "not_found");
        const key = `${what} ${result.status === 201 ? "then erased" : result.code}`;
        seen[key] = (seen[key] ?? 0) + 1;
      }
      expect(await leftovers([`chat${round}`, `turnword${round}`, `importword${round}`])).toEqual(NOTHING);
      expect(await history(session)).toEqual([]);
      if (uploaded.status === 201) {
        const id = (uploaded.body as { file: { id: string } }).file.id;
        expect((await workerFetch(`/api/files/${id}`, {}, USER)).status).toBe(404);
      }
      if (shared.status === 201) expect((await workerFetch((shared.body as { url: string }).url, {}, "bob")).status).toBe(404);
      if (imported.status === 201) for (const { id } of (imported.body as { imported: { id: string }[] }).imported) expect(await history(id)).toEqual([]);
    }
    // Every round ended empty, whichever way each write went.
    expect(Object.values(seen).reduce((a, b) => a + b, 0)).toBe(60);
    // 20 rounds of real requests (about 1 s each on a loaded machine).
  }, 120_000);
});
