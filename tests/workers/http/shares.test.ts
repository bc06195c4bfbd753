// Sharing a conversation through the Worker in real workerd: a read-only snapshot page
// (no script, strict CSP, every value escaped, tool cards, nothing internal), frozen at
// sharing time, revocable by its owner only, and dead once revoked or once its session
// or account is deleted or expires. Attacks: another user's session or share id, HTML in
// a title and in messages, no identity, a foreign Origin, a text/plain POST.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ChatSession } from "../../../src/session/ChatSession";
import { userAccount } from "../../../src/users/account";
import { reply, script } from "../../fixtures/fake-llm-script";
import type { TestUser } from "../test-users";
import { openSession, WORKER_ORIGIN, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const json = { "content-type": "application/json" };
const DAY = 24 * 60 * 60_000;
const CSP = "default-src 'none'; style-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

type Share = { id: string; url: string; sessionId: string; title: string | null; createdAt: number };

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const newSession = async (user: TestUser) =>
  ((await (await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" }, user)).json()) as { id: string }).id;
const share = (id: string, user: TestUser) => workerFetch(`/sessions/${id}/shares`, { method: "POST", headers: json, body: "{}" }, user);
const shared = async (id: string, user: TestUser) => {
  const res = await share(id, user);
  expect(res.status).toBe(201);
  return (await res.json()) as Share;
};
const view = (url: string, user: TestUser) => workerFetch(url, {}, user);
const revoke = (shareId: string, user: TestUser) => workerFetch(`/api/shares/${shareId}`, { method: "DELETE" }, user);

/** A session of `user` with a tool card (a direct call) and one real turn. */
async function conversation(user: TestUser, question: string, answer: string): Promise<string> {
  const id = await newSession(user);
  const call = await workerFetch(
    "/api/tools/filesystem.list_allowed_directories",
    { method: "POST", headers: json, body: JSON.stringify({ arguments: {}, sessionId: id }) },
    user,
  );
  expect(call.status).toBe(200);
  await script(llm, KEY, [reply.stream([answer])]);
  const socket = await openSession(id, user);
  socket.send({ type: "message", text: question });
  await socket.turnEnd();
  socket.close();
  return id;
}

describe("sharing a conversation", () => {
  it("shows a read-only snapshot to another signed-in user: escaped, no script, tool cards, nothing internal", async () => {
    const question = 'Look: <script>window.pwned=1</script><img src=x onerror="alert(1)">';
    const id = await conversation("alice", question, "Answer with </li><script>alert(2)</script> inside.");
    await workerFetch(`/sessions/${id}`, { method: "PATCH", headers: json, body: JSON.stringify({ title: "<b>Loud</b> title" }) }, "alice");
    const link = await shared(id, "alice");
    expect(link.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(link).toMatchObject({ url: `/share/${link.id}`, sessionId: id, title: "<b>Loud</b> title" });

    const page = await view(link.url, "bob");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toBe(CSP);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const body = await page.text();
    // Every value escaped: no element a message or title tried to add.
    expect(body).not.toMatch(/<script|<img|<b>/i);
    expect(body).toContain("&lt;script&gt;window.pwned=1&lt;/script&gt;");
    expect(body).toContain("&lt;b&gt;Loud&lt;/b&gt; title");
    expect(body).toContain("Answer with &lt;/li&gt;&lt;script&gt;alert(2)&lt;/script&gt; inside.");
    // The tool card, with its result.
    expect(body).toContain("filesystem · list_allowed_directories");
    expect(body).toContain("Allowed directories");
    expect(body).toContain("Shared by alice");
    // Nothing internal: no session id, socket or API path, token or identity id.
    expect(body).not.toContain(id);
    expect(body).not.toMatch(/\/sessions\/|\/api\/|ws:|wss:|token:/);
    expect(body).not.toContain(inject("testUsers").alice);
  });

  it("names the files a message carried, with their size, and shares neither their bytes nor their ids", async () => {
    const id = await newSession("alice");
    const name = "<b>notes.txt";
    const uploaded = await workerFetch(
      `/sessions/${id}/files`,
      {
        method: "POST",
        headers: { "content-type": "application/octet-stream", "x-file-name": encodeURIComponent(name), "x-file-type": "text/plain" },
        body: "the secret plan",
      },
      "alice",
    );
    expect(uploaded.status).toBe(201);
    const { file } = (await uploaded.json()) as { file: { id: string } };
    await script(llm, KEY, [reply.stream(["Read it."])]);
    const socket = await openSession(id, "alice");
    socket.send({ type: "message", text: "read my file", files: [file.id] });
    await socket.turnEnd();
    socket.close();
    const body = await (await view((await shared(id, "alice")).url, "bob")).text();
    expect(body).toContain("Files (not shared): &lt;b&gt;notes.txt (15 B)");
    expect(body).not.toContain(file.id);
    expect(body).not.toContain("the secret plan");
    // The owner's export names it too, with the id to fetch it by.
    const markdown = await (await workerFetch("/api/export?format=markdown", {}, "alice")).text();
    expect(markdown).toContain(`*Files:* ${name} (15 B, \`${file.id}\`)`);
  });

  it("shows answers as Markdown, as the chat does, with no way to run or load anything", async () => {
    const answer = [
      "# Plan",
      "**Bold**, `code` and 2*3*4.",
      "",
      "| a | b |",
      "|:--|--:|",
      "| 1 | 2 |",
      "",
      "```js",
      'if (x < 1) alert("hi")',
      "```",
      "[docs](https://example.com/docs) [bad](javascript:alert(1)) ![pic](https://example.com/p.png) <b onclick=alert(1)>raw</b>",
    ].join("\n");
    const id = await conversation("alice", "format it", answer);
    const body = await (await view((await shared(id, "alice")).url, "bob")).text();
    for (const part of [
      "<h3>Plan</h3>",
      "<strong>Bold</strong>, <code>code</code> and 2*3*4.",
      '<th data-align="left">a</th>',
      '<pre tabindex="0" role="region" aria-label="Code"><code class="language-js">if (x &lt; 1) alert(&quot;hi&quot;)',
      '<a href="https://example.com/docs" rel="noopener noreferrer">docs</a>',
      // Refused scheme: the text as written. An image: a link, never loaded. Raw HTML: text.
      "[bad](javascript:alert(1))",
      '<a href="https://example.com/p.png" class="image-link" rel="noopener noreferrer">pic</a>',
      "&lt;b onclick=alert(1)&gt;raw&lt;/b&gt;",
    ])
      expect(body).toContain(part);
    expect(body).not.toMatch(/<img|<b |href="javascript|style=/i);
  });

  it("is a snapshot: what the session says later does not show", async () => {
    const id = await conversation("alice", "first question", "first answer");
    const link = await shared(id, "alice");
    await script(llm, KEY, [reply.stream(["later answer"])]);
    const socket = await openSession(id, "alice");
    socket.send({ type: "message", text: "later question" });
    await socket.turnEnd();
    socket.close();
    const body = await (await view(link.url, "alice")).text();
    expect(body).toContain("first answer");
    expect(body).not.toContain("later");
  });

  it("is revoked by its owner only, and is gone once revoked", async () => {
    const id = await conversation("alice", "revocable", "yes");
    const link = await shared(id, "alice");
    const listed = async (user: TestUser, session?: string) =>
      ((await (await workerFetch(`/api/shares${session ? `?session=${session}` : ""}`, {}, user)).json()) as { shares: Share[] }).shares.map((s) => s.id);
    expect(await listed("alice", id)).toEqual([link.id]);
    expect(await listed("bob")).not.toContain(link.id);
    // Bob cannot revoke Alice's link: the 404 of a link that does not exist.
    expect((await revoke(link.id, "bob")).status).toBe(404);
    expect((await view(link.url, "bob")).status).toBe(200);
    // Bob cannot share Alice's session either.
    expect((await share(id, "bob")).status).toBe(404);

    expect((await revoke(link.id, "alice")).status).toBe(204);
    const gone = await view(link.url, "bob");
    expect(gone.status).toBe(404);
    expect(gone.headers.get("content-security-policy")).toBe(CSP);
    expect(await gone.text()).toContain("This link is not available");
    expect((await view(link.url, "alice")).status).toBe(404);
    expect((await revoke(link.id, "alice")).status).toBe(404);
    expect(await listed("alice", id)).toEqual([]);
    // Made-up and malformed ids get the same page.
    expect((await view("/share/AAAAAAAAAAAAAAAAAAAAAA", "alice")).status).toBe(404);
    expect((await view("/share/..%2F..%2Fapi%2Fme", "alice")).status).toBe(404);
    expect((await revoke("nope", "alice")).status).toBe(404);
  });

  it("dies with its session: deleted, expired, or the account's data erased", async () => {
    const deleted = await conversation("carol", "to delete", "ok");
    const one = await shared(deleted, "carol");
    expect((await workerFetch(`/sessions/${deleted}`, { method: "DELETE" }, "carol")).status).toBe(204);
    expect((await view(one.url, "bob")).status).toBe(404);

    const expired = await conversation("carol", "to expire", "ok");
    const two = await shared(expired, "carol");
    const sessions = (env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
    const stub = sessions.get(sessions.idFromName(expired));
    expect(await runInDurableObject(stub, (s: ChatSession) => s.expireIfIdle(undefined, undefined, Date.now() + 31 * DAY))).toBe(true);
    expect((await view(two.url, "bob")).status).toBe(404);

    const erased = await conversation("carol", "to erase", "ok");
    const three = await shared(erased, "carol");
    expect((await workerFetch("/api/account", { method: "DELETE" }, "carol")).status).toBe(200);
    expect((await view(three.url, "bob")).status).toBe(404);
  });

  it("needs a signed-in viewer, and refuses cross-site or non-JSON share requests", async () => {
    const id = await conversation("alice", "guarded", "ok");
    const link = await shared(id, "alice");
    // Signed out: told to sign in, and nothing of the conversation.
    const signedOut = await SELF.fetch(`${WORKER_ORIGIN}${link.url}`);
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers.get("content-security-policy")).toBe(CSP);
    const told = await signedOut.text();
    expect(told).toContain("Sign in to read this conversation");
    expect(told).not.toContain("guarded");
    // A bad token is no better than none.
    const badToken = await SELF.fetch(`${WORKER_ORIGIN}${link.url}`, { headers: { authorization: "Bearer not-a-token" } });
    expect(badToken.status).toBe(401);
    expect(await badToken.text()).not.toContain("guarded");
    const foreign = await workerFetch(`/sessions/${id}/shares`, { method: "POST", headers: { ...json, origin: "https://evil.example" }, body: "{}" }, "alice");
    expect(foreign.status).toBe(403);
    const plain = await workerFetch(`/sessions/${id}/shares`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" }, "alice");
    expect(plain.status).toBe(415);
    const revokeForeign = await workerFetch(`/api/shares/${link.id}`, { method: "DELETE", headers: { origin: "https://evil.example" } }, "alice");
    expect(revokeForeign.status).toBe(403);
    expect((await view(link.url, "bob")).status).toBe(200);
  });
});

describe("limits on sharing", () => {
  type Refusal = { error: { code: string; message: string; retryAfterMs?: number } };

  it("caps a chat's live links, counted atomically: 30 at once make exactly SHARES_PER_SESSION (10), then the rate refuses", async () => {
    // erin shares nowhere else in this run: her rate bucket is full.
    const [first, second] = [await newSession("erin"), await newSession("erin")];
    const answers = await Promise.all(Array.from({ length: 30 }, () => share(first, "erin")));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(20);
    const refused = (await answers.find((a) => a.status === 409)?.json()) as Refusal;
    expect(refused.error).toEqual({
      code: "too_many_shares",
      message: "this chat has 10 shared links already, the most allowed: revoke one first",
    });
    // Nothing past the cap was listed, and every listed link shows its snapshot.
    const list = ((await (await workerFetch(`/api/shares?session=${first}`, {}, "erin")).json()) as { shares: Share[] }).shares;
    expect(list).toHaveLength(10);
    expect((await Promise.all(list.map(async (l) => (await view(l.url, "bob")).status))).every((s) => s === 200)).toBe(true);

    // The ten took the burst (SHARE_BURST 10): another chat's link waits for the rate (SHARES_PER_MINUTE 10).
    const throttled = await share(second, "erin");
    expect(throttled.status).toBe(429);
    const body = (await throttled.json()) as Refusal;
    expect(body.error).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/^Too many shared links: try again in [1-6] s\.$/) });
    expect(body.error.retryAfterMs).toBeGreaterThan(0);
    expect(body.error.retryAfterMs).toBeLessThanOrEqual(6_000);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await (await workerFetch(`/api/shares?session=${second}`, {}, "erin")).json()) as { shares: Share[] }).shares).toEqual([]);
    // Someone else's sharing is not affected.
    expect((await share(await newSession("bob"), "bob")).status).toBe(201);
  });

  it("caps a user's live links across chats (SHARES_PER_USER), in the account object that lists them", async () => {
    const account = userAccount(env as unknown as Env, `token:share-cap-${crypto.randomUUID()}`);
    const caps = { perSession: 10, perUser: 3 };
    const rate = { perMinute: 600, burst: 100 };
    const decisions = [];
    for (let i = 0; i < 5; i++) {
      decisions.push(await account.addShare({ id: `share-${i}`, sessionId: `chat-${i}`, title: null, createdAt: Date.now() }, caps, rate));
    }
    expect(decisions.slice(0, 3)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(decisions.slice(3)).toEqual(
      Array(2).fill({ ok: false, code: "too_many_shares", message: "you have 3 shared links already, the most allowed: revoke one first" }),
    );
    expect((await account.listShares()).map((s) => s.id).sort()).toEqual(["share-0", "share-1", "share-2"]);
    // Revoking one makes room again.
    expect(await account.revokeShare("share-1")).toBe(true);
    expect(await account.addShare({ id: "share-5", sessionId: "chat-5", title: null, createdAt: Date.now() }, caps, rate)).toEqual({ ok: true });
  });
});
