// Import through the Worker in real workerd: this product's export comes back as new
// sessions (history, tool cards, title, searchable, and a model can go on from it), one
// exported session alone, and ChatGPT's and Claude's conversations.json; bad input gets a
// typed error naming what was wrong: not JSON, an unknown shape, a bad entry, too many,
// too long, too deep, too large, the wrong content type, a foreign Origin, no identity.
import { SELF } from "cloudflare:test";
import { beforeEach, describe, expect, inject, it } from "vitest";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import type { TestUser } from "../test-users";
import { openSession, WORKER_ORIGIN, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const json = { "content-type": "application/json" };

type Entry = { kind: string; text?: string; server?: string; tool?: string; callId?: string; result?: unknown };
type Imported = { imported: { id: string; title: string; entries: number }[] };

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
});

const importBody = (body: string, user: TestUser = "alice", headers: Record<string, string> = json) =>
  workerFetch("/api/import", { method: "POST", headers, body }, user);
const imported = async (body: unknown, user: TestUser = "alice") => {
  const res = await importBody(JSON.stringify(body), user);
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as Imported).imported;
};
const history = async (id: string, user: TestUser = "alice") =>
  ((await (await workerFetch(`/sessions/${id}/history`, {}, user)).json()) as { entries: Entry[] }).entries;
const refusal = async (res: Response) => ({ status: res.status, ...((await res.json()) as { error: { code: string; message: string } }).error });

describe("importing a conversation", () => {
  it("brings this product's export back as a new session: entries, tool cards, title, search, and the model goes on from it", async () => {
    const id = ((await (await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" }, "alice")).json()) as { id: string }).id;
    await workerFetch(
      "/api/tools/filesystem.list_allowed_directories",
      { method: "POST", headers: json, body: JSON.stringify({ arguments: {}, sessionId: id, approved: true }) },
      "alice",
    );
    await script(llm, KEY, [reply.stream(["The capybara is the largest rodent."])]);
    const socket = await openSession(id, "alice");
    socket.send({ type: "message", text: "Which rodent is the largest?" });
    await socket.turnEnd();
    socket.close();
    await workerFetch(`/sessions/${id}`, { method: "PATCH", headers: json, body: JSON.stringify({ title: "Rodent sizes" }) }, "alice");
    const exported = (await (await workerFetch("/api/export", {}, "alice")).json()) as { sessions: { id: string }[] };
    const file = { ...exported, sessions: exported.sessions.filter((s) => s.id === id) };

    const [copy] = await imported(file);
    expect(copy?.id).not.toBe(id);
    expect(copy?.title).toBe("Rodent sizes");
    const original = await history(id);
    const brought = await history(copy?.id ?? "");
    const shape = (entries: Entry[]) => entries.map((e) => [e.kind, e.text ?? null, e.server ?? null, e.tool ?? null]);
    expect(shape(brought)).toEqual(shape(original));
    expect(brought.find((e) => e.kind === "tool_result")?.result).toEqual(original.find((e) => e.kind === "tool_result")?.result);
    expect(copy?.entries).toBe(original.length);
    const listed = ((await (await workerFetch("/api/sessions", {}, "alice")).json()) as { sessions: { id: string; title: string }[] }).sessions;
    expect(listed.find((s) => s.id === copy?.id)?.title).toBe("Rodent sizes");
    const found = ((await (await workerFetch("/api/search?q=capybara", {}, "alice")).json()) as { results: { sessionId: string }[] }).results;
    expect(found.map((r) => r.sessionId)).toContain(copy?.id);

    // The model continues it: the imported question and answer reach it, the direct call's card does not.
    await script(llm, KEY, [reply.stream(["Yes, about 50 kg."])]);
    const next = await openSession(copy?.id ?? "", "alice");
    next.send({ type: "message", text: "How heavy?" });
    expect((await next.turnEnd()).end.reason).toBe("complete");
    next.close();
    const sent = JSON.stringify((await requests(llm, KEY)).at(-1)?.body.contents);
    expect(sent).toContain("Which rodent is the largest?");
    expect(sent).toContain("The capybara is the largest rodent.");
    expect(sent).toContain("How heavy?");
    expect(sent).not.toContain("Allowed directories");
    // Only its importer has it.
    expect((await workerFetch(`/sessions/${copy?.id}/history`, {}, "bob")).status).toBe(404);
  });

  it("imports one exported session alone, titled by its first message when it has no title", async () => {
    const [one] = await imported({
      title: null,
      entries: [
        { kind: "user", text: "Hello   from\\nthe past" },
        { kind: "assistant", text: "Hi." },
      ],
    });
    expect(one).toMatchObject({ title: "Hello from\\nthe past", entries: 2 });
    expect((await history(one?.id ?? "")).map((e) => e.kind)).toEqual(["user", "assistant"]);
  });

  it("imports ChatGPT's and Claude's conversations.json, along ChatGPT's current branch", async () => {
    const chatgpt = [
      {
        title: "Tea brewing",
        current_node: "c",
        mapping: {
          root: { parent: null, message: null },
          s: { parent: "root", message: { author: { role: "system" }, content: { parts: [""] } } },
          a: { parent: "s", message: { author: { role: "user" }, content: { content_type: "text", parts: ["How hot for green tea?"] } } },
          old: { parent: "a", message: { author: { role: "assistant" }, content: { parts: ["An abandoned answer."] } } },
          c: { parent: "a", message: { author: { role: "assistant" }, content: { parts: ["About 80 °C."] } } },
        },
      },
    ];
    const [tea] = await imported(chatgpt);
    expect(tea?.title).toBe("Tea brewing");
    expect((await history(tea?.id ?? "")).map((e) => [e.kind, e.text])).toEqual([
      ["user", "How hot for green tea?"],
      ["assistant", "About 80 °C."],
    ]);
    const claude = [
      {
        name: "Bread",
        chat_messages: [
          { sender: "human", text: "Why does dough rise?" },
          { sender: "assistant", text: "", content: [{ type: "text", text: "Yeast makes CO2." }] },
        ],
      },
    ];
    const [bread] = await imported(claude);
    expect(bread?.title).toBe("Bread");
    expect((await history(bread?.id ?? "")).map((e) => [e.kind, e.text])).toEqual([
      ["user", "Why does dough rise?"],
      ["assistant", "Yeast makes CO2."],
    ]);
  });

  it("refuses a bad import with a typed error naming what was wrong, and makes no session", async () => {
    const before = ((await (await workerFetch("/api/sessions", {}, "alice")).json()) as { sessions: unknown[] }).sessions.length;
    expect(await refusal(await importBody("{not json"))).toMatchObject({ status: 400, code: "bad_json" });
    expect(await refusal(await importBody('{"hello": 1}'))).toMatchObject({
      status: 400,
      code: "bad_request",
      message: expect.stringMatching(/^not a conversation export/),
    });
    expect(await refusal(await importBody(JSON.stringify({ sessions: [{ title: "x", entries: [{ kind: "wizard", text: "hi" }] }] })))).toMatchObject({
      status: 400,
      code: "bad_request",
      message: expect.stringMatching(/^an edgehost export: sessions\.0\.entries\.0\.kind: /),
    });
    expect(await refusal(await importBody(JSON.stringify({ sessions: [] })))).toMatchObject({
      message: "an edgehost export: sessions: there is no conversation in it",
    });
    const many = { sessions: Array.from({ length: 51 }, () => ({ title: "x", entries: [] })) };
    expect((await refusal(await importBody(JSON.stringify(many)))).message).toBe("an edgehost export: sessions: at most 50 conversations per import");
    const long = { entries: [{ kind: "user", text: "x".repeat(256 * 1024 + 1) }] };
    expect((await refusal(await importBody(JSON.stringify(long)))).message).toMatch(/^an edgehost session: entries\.0\.text: at most 262144 characters/);
    let deep: unknown = "bottom";
    for (let i = 0; i < 80; i++) deep = { d: deep };
    expect((await refusal(await importBody(JSON.stringify({ entries: [{ kind: "tool_call", arguments: deep }] })))).message).toMatch(/nests deeper/);
    // Past 5 MB: refused as the body arrives.
    const huge = await importBody(JSON.stringify({ entries: [{ kind: "user", text: "y".repeat(5 * 1024 * 1024) }] }));
    expect(await refusal(huge)).toMatchObject({ status: 413, code: "payload_too_large" });
    expect(((await (await workerFetch("/api/sessions", {}, "alice")).json()) as { sessions: unknown[] }).sessions.length).toBe(before);
  });

  it("refuses a text/plain body, a foreign Origin and no identity", async () => {
    const body = JSON.stringify({ entries: [{ kind: "user", text: "sneaky" }] });
    expect((await importBody(body, "alice", { "content-type": "text/plain" })).status).toBe(415);
    expect((await importBody(body, "alice", { ...json, origin: "https://evil.example" })).status).toBe(403);
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/import`, { method: "POST", headers: json, body })).status).toBe(401);
  });
});
