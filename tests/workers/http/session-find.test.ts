// Finding a conversation through the Worker in real workerd: full-text search (FTS5 in
// the user's account object) over titles and messages that real turns wrote, kept in step
// when a session is renamed, reset, deleted, expired or the account erased; pinning; and
// the attacks: another user's sessions, FTS syntax in the query, HTML in a title.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ChatSession } from "../../../src/session/ChatSession";
import { userAccount } from "../../../src/users/account";
import { SessionSearch } from "../../../src/users/session-search";
import { reply, script } from "../../fixtures/fake-llm-script";
import type { TestUser } from "../test-users";
import { openSession, WORKER_ORIGIN, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const json = { "content-type": "application/json" };
const DAY = 24 * 60 * 60_000;

type Hit = { seq: number | null; kind: string; snippet: { text: string; match: boolean }[] };
type Result = { sessionId: string; title: string | null; hits: Hit[] };

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const search = async (q: string, user: TestUser) => {
  const res = await workerFetch(`/api/search?q=${encodeURIComponent(q)}`, {}, user);
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Result[] }).results;
};
const found = async (q: string, user: TestUser) => (await search(q, user)).map((r) => r.sessionId);
const newSession = async (user: TestUser) =>
  ((await (await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" }, user)).json()) as { id: string }).id;
const listed = async (user: TestUser) =>
  ((await (await workerFetch("/api/sessions", {}, user)).json()) as { sessions: { id: string; pinned: boolean }[] }).sessions;

/** A session of `user` with one real turn: `question` and the model's `answer`, searchable once the turn ended. */
async function talkedSession(user: TestUser, question: string, answer: string): Promise<string> {
  await script(llm, KEY, [reply.stream([answer])]);
  const id = await newSession(user);
  const socket = await openSession(id, user);
  socket.send({ type: "message", text: question });
  await socket.turnEnd();
  socket.close();
  // The session reports its messages to the account right after the turn.
  const word = answer.split(" ")[0] ?? answer;
  await expect.poll(() => found(word, user), { timeout: 10_000 }).toContain(id);
  return id;
}

describe("finding a conversation", () => {
  it("finds a session by a word of its question or of the answer, with the matching line marked and its message's seq", async () => {
    const id = await talkedSession("bob", "Where does the quokka live?", "Rottnestian quokkas live on an island off Perth.");
    const [result] = (await search("quokka", "bob")).filter((r) => r.sessionId === id);
    expect(result?.title).toBe("Where does the quokka live?");
    const kinds = result?.hits.map((h) => h.kind).sort();
    expect(kinds).toEqual(["assistant", "title", "user"]);
    const user = result?.hits.find((h) => h.kind === "user");
    expect(user?.snippet.filter((p) => p.match).map((p) => p.text.toLowerCase())).toEqual(["quokka"]);
    expect(user?.snippet.map((p) => p.text).join("")).toBe("Where does the quokka live?");
    // The history seq of that very message: the page opens the session there.
    const history = (await (await workerFetch(`/sessions/${id}/history`, {}, "bob")).json()) as { entries: { seq: number; kind: string }[] };
    expect(user?.seq).toBe(history.entries.find((e) => e.kind === "user")?.seq);
    // A prefix matches while typing; every word must be there.
    expect(await found("Rottnest", "bob")).toContain(id);
    expect(await found("quokka Perth", "bob")).toContain(id);
    expect(await found("quokka Sydney", "bob")).not.toContain(id);
  });

  it("never shows another user's session, whatever the query", async () => {
    const id = await talkedSession("bob", "the zanzibar ledger", "Zanzibarian ledgers are kept in teak.");
    expect(await found("zanzibar", "alice")).not.toContain(id);
    expect(await found("zanzibar", "carol")).not.toContain(id);
    // FTS5 syntax typed into the box is searched as words, not run as a query.
    for (const q of ['zanzibar" OR "a', "session_id:*", "NEAR(zanzibar teak)", "*", "kind : title", '"']) {
      const res = await workerFetch(`/api/search?q=${encodeURIComponent(q)}`, {}, "alice");
      expect(res.status, q).toBe(200);
      expect(
        ((await res.json()) as { results: Result[] }).results.map((r) => r.sessionId),
        q,
      ).not.toContain(id);
    }
  });

  it("follows a rename, and gives a title that holds HTML back as plain text parts", async () => {
    const id = await newSession("bob");
    const title = 'Budget <img src=x onerror="alert(1)"> plan';
    expect((await workerFetch(`/sessions/${id}`, { method: "PATCH", headers: json, body: JSON.stringify({ title }) }, "bob")).status).toBe(200);
    const [hit] = (await search("onerror", "bob")).filter((r) => r.sessionId === id);
    expect(hit?.hits[0]?.kind).toBe("title");
    expect(hit?.hits[0]?.snippet.map((p) => p.text).join("")).toBe(title);
    await workerFetch(`/sessions/${id}`, { method: "PATCH", headers: json, body: JSON.stringify({ title: "Holiday plan" }) }, "bob");
    expect(await found("onerror", "bob")).not.toContain(id);
    expect(await found("holiday", "bob")).toContain(id);
  });

  it("forgets a session's messages when it is reset, deleted or expires", async () => {
    const reset = await talkedSession("bob", "ocelot facts", "Ocelotine spots are unique.");
    const socket = await openSession(reset, "bob");
    socket.send({ type: "reset" });
    await expect.poll(() => found("Ocelotine", "bob"), { timeout: 10_000 }).not.toContain(reset);
    socket.close();
    // Its title stays: the session is still there, empty.
    expect(await found("ocelot", "bob")).toContain(reset);

    const deleted = await talkedSession("bob", "pangolin facts", "Pangolinic scales are keratin.");
    expect((await workerFetch(`/sessions/${deleted}`, { method: "DELETE" }, "bob")).status).toBe(204);
    expect(await found("pangolin", "bob")).not.toContain(deleted);

    const expired = await talkedSession("bob", "axolotl facts", "Axolotlish gills regrow.");
    const sessions = (env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
    const stub = sessions.get(sessions.idFromName(expired));
    expect(await runInDurableObject(stub, (s: ChatSession) => s.expireIfIdle(undefined, undefined, Date.now() + 31 * DAY))).toBe(true);
    expect(await found("axolotl", "bob")).not.toContain(expired);
  });

  it("forgets everything on delete all sessions and on delete my data", async () => {
    const one = await talkedSession("carol", "narwhal tusks", "Narwhalian tusks are teeth.");
    expect((await workerFetch("/api/sessions", { method: "DELETE" }, "carol")).status).toBe(200);
    expect(await found("narwhal", "carol")).not.toContain(one);
    const two = await talkedSession("carol", "tapir noses", "Tapirish noses grasp leaves.");
    expect((await workerFetch("/api/account", { method: "DELETE" }, "carol")).status).toBe(200);
    expect(await search("tapir", "carol")).toEqual([]);
    expect(two).toBeTruthy();
  });

  it("refuses an empty or too long query with a typed error", async () => {
    for (const q of ["", "   ", "x".repeat(201)]) {
      const res = await workerFetch(`/api/search?q=${encodeURIComponent(q)}`, {}, "bob");
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: "bad_request",
        message: expect.stringMatching(/^q: /),
      });
    }
    expect((await workerFetch("/api/search", {}, "bob")).status).toBe(400);
    // No identity, no search.
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/search?q=a`)).status).toBe(401);
  });
});

describe("pinning a session", () => {
  it("lists pinned sessions first, and only the owner can pin", async () => {
    const older = await newSession("bob");
    const newer = await newSession("bob");
    const order = async () => (await listed("bob")).map((s) => s.id).filter((id) => id === older || id === newer);
    expect(await order()).toEqual([newer, older]);
    const pinned = await workerFetch(`/sessions/${older}/pin`, { method: "PUT" }, "bob");
    expect(await pinned.json()).toEqual({ id: older, pinned: true });
    expect(await order()).toEqual([older, newer]);
    expect((await listed("bob")).find((s) => s.id === older)?.pinned).toBe(true);
    // Another user's pin is the 404 of a session that does not exist, and changes nothing.
    expect((await workerFetch(`/sessions/${newer}/pin`, { method: "PUT" }, "alice")).status).toBe(404);
    expect((await workerFetch(`/sessions/${older}/pin`, { method: "DELETE" }, "alice")).status).toBe(404);
    expect(await order()).toEqual([older, newer]);
    // A cross-site pin is refused before any route.
    const foreign = await workerFetch(`/sessions/${newer}/pin`, { method: "PUT", headers: { origin: "https://evil.example" } }, "bob");
    expect(foreign.status).toBe(403);
    expect(await workerFetch(`/sessions/${older}/pin`, { method: "DELETE" }, "bob").then((r) => r.json())).toEqual({ id: older, pinned: false });
    expect(await order()).toEqual([newer, older]);
  });
});

describe("the search index's row keys", () => {
  it("takes an index written before its keys, then replaces and forgets rows by key", async () => {
    const account = userAccount(env as unknown as Env, `token:keys-${crypto.randomUUID()}`);
    await runInDurableObject(account, (_instance, state) => {
      const sql = state.storage.sql;
      // An index as the version before the keys left it: rows, no keys.
      sql.exec("DROP TABLE IF EXISTS session_text_keys");
      sql.exec("DELETE FROM session_text");
      const legacy = (session: string, seq: number | null, kind: string, body: string) =>
        sql.exec("INSERT INTO session_text (session_id, seq, kind, body) VALUES (?, ?, ?, ?)", session, seq, kind, body);
      legacy("s1", null, "title", "Trip plan");
      legacy("s1", 1, "user", "pack the wombat");
      legacy("s2", 1, "user", "feed the wombat");
      const search = new SessionSearch(sql);
      const bodies = () =>
        sql
          .exec<{ session_id: string; seq: number | null; body: string }>("SELECT session_id, seq, body FROM session_text ORDER BY session_id, seq")
          .toArray()
          .map((r) => `${r.session_id}:${r.seq}:${r.body}`);
      // A message sent again replaces its row, the legacy one included; a title likewise.
      search.addMessages("s1", [{ seq: 1, kind: "user", text: "pack the quokka" }]);
      search.setTitle("s1", "Quokka trip");
      expect(bodies()).toEqual(["s1:null:Quokka trip", "s1:1:pack the quokka", "s2:1:feed the wombat"]);
      // Forgetting a session's messages keeps its title and every other session.
      search.forget("s1", false);
      expect(bodies()).toEqual(["s1:null:Quokka trip", "s2:1:feed the wombat"]);
      search.forget("s1", true);
      expect(bodies()).toEqual(["s2:1:feed the wombat"]);
    });
  });
});
