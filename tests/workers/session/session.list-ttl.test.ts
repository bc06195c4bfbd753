// Cacheable lists in a person's sessions (issue 34, MCP 2026-07-28 `ttlMs`/`cacheScope`),
// in real workerd with the real ChatSession, the owner's account and the fake Gemini: a
// list a server says is fresh is kept with the owner's discovery rows, so their new
// session declares the server's tools on its first model call and connects without
// asking tools/list again while the ttl lasts; another user's session never gets that
// private list (it reads its own); with ttl 0 a new session reads the list as today.
// The server is tests/fixtures/ttl-server.mjs (the SDK's v2 McpServer with cache hints),
// one server per tag, counting the methods it was sent.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import type { StoredUserServer } from "../../../src/users/user-servers";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { frameOf, type SessionClient } from "../../fixtures/session-client";
import type { TestUser } from "../test-users";
import { openSession } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const base = inject("ttlServerBase");
const bindings = env as unknown as Env;
const NAME = "lists";

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const methods = async (tag: string) => (await (await fetch(`${base}/t/${tag}/methods`)).json()) as string[];
const declared = (body: Record<string, unknown> | undefined) =>
  ((body?.tools as { functionDeclarations?: { name: string }[] }[] | undefined) ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
const completed = (messages: { type: string }[]) => JSON.stringify(messages.find((m) => m.type === "status" && (m as { state?: string }).state === "complete"));

/** `users`' own server NAME at `url` (its echo needs no approval) for the length of `body`. */
async function withServer(users: TestUser[], url: string, body: () => Promise<void>): Promise<void> {
  const server: StoredUserServer = { name: NAME, url, type: "http", headers: {}, alwaysAllow: ["echo"], excludeTools: [], disabled: false };
  const accounts = users.map((user) => userAccount(bindings, `token:${user}`));
  for (const account of accounts) expect(await account.putServer(server, true)).toEqual({ ok: true });
  try {
    await body();
  } finally {
    for (const account of accounts) await account.deleteServer(NAME);
  }
}

/** A new session of `user` with only NAME on; runs one turn with `replies` and gives its frames and the first model request's tools. */
async function turn(user: TestUser, replies: Parameters<typeof script>[2]) {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
  await script(llm, KEY, replies);
  const socket: SessionClient = await openSession(crypto.randomUUID(), user);
  socket.send({ type: "set_servers", enabled: [NAME] });
  const from = socket.received.length;
  socket.send({ type: "message", text: "go" });
  const { end, messages } = await socket.turnEnd(from);
  expect(end.reason).toBe("complete");
  const tools = declared((await requests(llm, KEY))[0]?.body);
  const rows = socket.received.filter(frameOf("servers")).flatMap((m) => m.servers.filter((s) => s.name === NAME));
  socket.close();
  return { messages, tools, rows };
}

describe("a server's lists with a ttl, across a person's sessions", () => {
  it("a new session of the owner declares the tools at once and connects without tools/list while fresh; another user's session reads its own", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    await withServer(["carol", "erin"], `${base}/t/${tag}/600000/private/mcp`, async () => {
      const first = await turn("carol", [reply.text("first")]);
      expect(first.tools).toContain(`${NAME}__echo`);
      expect((await methods(tag)).filter((m) => m === "tools/list")).toHaveLength(1);

      // carol's next session: the tools from her row, the call runs, and the list was not asked for again.
      const mark = (await methods(tag)).length;
      const second = await turn("carol", [reply.callReply(`${NAME}__echo`, { text: "from a kept list" }, { id: "l-1" }), reply.text("done")]);
      expect(second.tools).toContain(`${NAME}__echo`);
      expect(completed(second.messages)).toContain("from a kept list");
      expect(second.rows.at(-1)).toMatchObject({ state: "ready", protocol: "2026-07-28", toolCount: 2 });
      const sent = (await methods(tag)).slice(mark);
      expect(sent).toContain("tools/call");
      expect(sent).not.toContain("tools/list");
      expect(sent).not.toContain("prompts/list");

      // erin has the same server: carol's private list is not hers; her session reads the list itself.
      const other = (await methods(tag)).length;
      const third = await turn("erin", [reply.text("hers")]);
      expect(third.tools).toContain(`${NAME}__echo`);
      expect((await methods(tag)).slice(other)).toContain("tools/list");
    });
  });

  it("with ttl 0 a new session of the owner reads the list again, as today", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    await withServer(["carol"], `${base}/t/${tag}/0/public/mcp`, async () => {
      await turn("carol", [reply.text("first")]);
      const mark = (await methods(tag)).length;
      const second = await turn("carol", [reply.callReply(`${NAME}__echo`, { text: "listed again" }, { id: "z-1" }), reply.text("done")]);
      expect(completed(second.messages)).toContain("listed again");
      expect((await methods(tag)).slice(mark)).toContain("tools/list");
    });
  });
});
