// Model providers a user adds with their own key, through the real Worker in workerd
// against the fake model server: add, list, edit and remove with the key write-only
// (masked in every answer, a mask sent back keeps it), the Test button's route (models,
// then a short answer; an error that quotes the key comes back scrubbed), field-level
// errors, and one user's provider never visible to or usable by another.
import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { KEY_MASK } from "../../../src/users/user-providers";
import { reply, requests, script, scriptModels, uniqueKey } from "../../fixtures/fake-llm-script";
import type { TestUser } from "../test-users";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const json = { "content-type": "application/json" };

async function call(path: string, init: RequestInit = {}, user: TestUser = "carol"): Promise<{ status: number; text: string; body: Record<string, unknown> }> {
  const response = await workerFetch(path, init, user);
  const text = response.status === 204 ? "" : await response.text();
  return { status: response.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
const send = (method: string, path: string, body: unknown, user: TestUser = "carol") => call(path, { method, headers: json, body: JSON.stringify(body) }, user);

describe("a user's own model providers", () => {
  it("keeps the key write-only: masked in every answer, kept by a mask, replaced by a new key", async () => {
    const key = uniqueKey("own-crud");
    const id = `oa${crypto.randomUUID().slice(0, 6)}`;
    const entry = { id, kind: "openai", label: "My endpoint", baseUrl: `${llm}/v1`, apiKey: key, models: ["m-one", "m-two"] };
    const added = await send("POST", "/api/my-providers", entry);
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ provider: { ...entry, apiKey: KEY_MASK } });
    const listed = await call("/api/my-providers");
    expect(listed.body).toEqual({ providers: [{ ...entry, apiKey: KEY_MASK }] });
    const models = await call("/api/models");
    expect((models.body.models as { provider: string; model: string }[]).filter((m) => m.provider === `user:${id}`)).toEqual([
      { provider: `user:${id}`, model: "m-one", providerLabel: "My endpoint", source: "user" },
      { provider: `user:${id}`, model: "m-two", providerLabel: "My endpoint", source: "user" },
    ]);
    for (const answer of [added, listed, models]) expect(answer.text).not.toContain(key);

    const carolId = ((await call("/api/me")).body.user as { id: string }).id;
    const account = userAccount(env as unknown as Env, carolId);
    expect((await send("PUT", `/api/my-providers/${id}`, { ...entry, apiKey: KEY_MASK, label: "Renamed" })).status).toBe(200);
    expect(await account.getModelProvider(id)).toMatchObject({ apiKey: key, label: "Renamed" });
    const edited = await send("PUT", `/api/my-providers/${id}`, { ...entry, apiKey: "a-new-key-1234" });
    expect(edited.text).not.toContain("a-new-key-1234");
    expect(await account.getModelProvider(id)).toMatchObject({ apiKey: "a-new-key-1234" });

    expect((await call(`/api/my-providers/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`/api/my-providers/${id}`, { method: "DELETE" })).status).toBe(404);
    expect(await account.getModelProvider(id)).toBeUndefined();
  });

  it("tests a provider before it is saved: its models, a short answer, and errors with the key scrubbed", async () => {
    const key = uniqueKey("own-test");
    await scriptModels(llm, key, ["listed-a", "listed-b"]);
    await script(llm, key, [reply.text("OK"), reply.error(401, {}, { error: { message: `Incorrect API key provided: ${key}.` } })]);
    const entry = { id: "trial", kind: "openai", baseUrl: `${llm}/v1`, apiKey: key, defaultModel: "listed-b" };
    const passed = await send("POST", "/api/my-providers/test", entry);
    expect(passed.status).toBe(200);
    expect(passed.body).toEqual({ test: { ok: true, model: "listed-b", reply: "OK", models: ["listed-a", "listed-b"] } });
    const failed = await send("POST", "/api/my-providers/test", entry);
    expect(failed.body).toEqual({
      test: {
        ok: false,
        model: "listed-b",
        error: `OpenAI-compatible API error 401: Incorrect API key provided: ${KEY_MASK}.`,
        models: ["listed-a", "listed-b"],
      },
    });
    expect(failed.text).not.toContain(key);
    // Nothing was saved by testing.
    expect((await call("/api/my-providers")).text).not.toContain('"trial"');
  });

  it("scrubs every form of the key from an upstream error, and quotes only a short excerpt", async () => {
    // `"` and `\` change when JSON-escaped; `/`, `+` and `=` when URL-encoded (issue 33).
    const key = `${uniqueKey("own-forms")}"q\\s/p+e=`;
    const forms = [JSON.stringify(key).slice(1, -1), encodeURIComponent(key), btoa(key), btoa(`user:${key}`)];
    const message = `bad key "${forms[0]}" in ?key=${forms[1]} token ${forms[2]} basic ${forms[3]} ${"padding ".repeat(100)}`;
    await script(llm, key, [reply.error(401, {}, { error: { message } })]);
    const entry = { id: "forms", kind: "openai", baseUrl: `${llm}/v1`, apiKey: key, models: ["m"] };
    const failed = await send("POST", "/api/my-providers/test", entry);
    const error = (failed.body.test as { error: string }).error;
    expect(error).toMatch(/^OpenAI-compatible API error 401: bad key/);
    expect(error.length).toBeLessThan(260);
    for (const form of [key, ...forms]) expect(failed.text).not.toContain(form);
    expect(failed.text).not.toContain(key.slice(0, 20));
  });

  it("binds a saved key to its kind and base URL: the mask with another address is refused and nothing is sent (issue 33)", async () => {
    const key = uniqueKey("own-bound");
    const id = `bd${crypto.randomUUID().slice(0, 6)}`;
    const entry = { id, kind: "openai", baseUrl: `${llm}/v1`, apiKey: key, models: ["m"] };
    expect((await send("POST", "/api/my-providers", entry)).status).toBe(201);
    const moved = { ...entry, apiKey: KEY_MASK, baseUrl: `${llm}/elsewhere/v1` };
    const attempts = [
      await send("POST", "/api/my-providers/test", moved),
      await send("PUT", `/api/my-providers/${id}`, moved),
      await send("PUT", `/api/my-providers/${id}`, { ...entry, apiKey: KEY_MASK, kind: "anthropic" }),
    ];
    for (const answer of attempts) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: "secret_required", issues: expect.arrayContaining([expect.objectContaining({ path: "apiKey" })]) } });
    }
    // Another person naming the id gets no key to keep, and cannot change or remove the entry.
    expect((await send("POST", "/api/my-providers/test", { ...entry, apiKey: KEY_MASK }, "bob")).status).toBe(400);
    expect((await send("PUT", `/api/my-providers/${id}`, moved, "bob")).status).toBe(404);
    expect(await requests(llm, key)).toEqual([]);
    expect((await call(`/api/my-providers/${id}`, { method: "DELETE" })).status).toBe(204);
  });

  it("answers bad entries with field-level errors", async () => {
    const cases: [unknown, string][] = [
      [{ id: "Bad Id", kind: "openai", baseUrl: `${llm}/v1`, models: ["m"] }, "id"],
      [{ id: "k", kind: "claude", apiKey: "x" }, "kind"],
      [{ id: "k", kind: "anthropic", models: ["m"] }, "apiKey"],
      [{ id: "k", kind: "openai", baseUrl: `${llm}/v1` }, "models"],
      [{ id: "k", kind: "openai", baseUrl: "ftp://h/v1", models: ["m"] }, "baseUrl"],
      [{ id: "k", kind: "openai", baseUrl: `${llm}/v1`, models: ["m"], apiKey: KEY_MASK }, "apiKey"],
      [{ id: "k", kind: "openai", baseUrl: `${llm}/v1`, models: ["m"], extra: true }, ""],
    ];
    for (const [body, path] of cases) {
      const answer = await send("POST", "/api/my-providers", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body, JSON.stringify(body)).toMatchObject({ error: { code: "bad_request", issues: [expect.objectContaining({ path })] } });
    }
  });

  it("runs each turn on the key as it is now: a changed key from the next turn, and another user's on the same address their own", async () => {
    // A session keeps its provider (and its SDK client) between turns (session-model.ts):
    // a key replaced meanwhile must still be the one the next request carries, and two
    // people's sessions must never send through one another's.
    const [first, second, bobs] = [uniqueKey("own-kept-1"), uniqueKey("own-kept-2"), uniqueKey("own-kept-bob")];
    const id = `gk${crypto.randomUUID().slice(0, 6)}`;
    const entry = { id, kind: "gemini", baseUrl: llm, apiKey: first, models: ["g-kept"] };
    expect((await send("POST", "/api/my-providers", entry)).status).toBe(201);
    expect((await send("POST", "/api/my-providers", { ...entry, apiKey: bobs }, "bob")).status).toBe(201);
    const turn = async (user: TestUser, sessionId: string, key: string, text: string) => {
      await script(llm, key, [reply.text(`Answer to ${text}.`)]);
      const socket = await openSession(sessionId, user);
      let from = socket.received.length;
      socket.send({ type: "set_model", provider: `user:${id}`, model: "g-kept" });
      await socket.next((m) => m.type === "model" && m.choice?.provider === `user:${id}`, from);
      from = socket.received.length;
      socket.send({ type: "message", text });
      const { messages } = await socket.turnEnd(from);
      socket.close();
      return messages.find((m) => m.type === "entry" && m.entry.kind === "assistant");
    };
    const carols = crypto.randomUUID();
    expect(await turn("carol", carols, first, "one")).toMatchObject({ entry: { text: "Answer to one." } });
    expect((await send("PUT", `/api/my-providers/${id}`, { ...entry, apiKey: second })).status).toBe(200);
    expect(await turn("carol", carols, second, "two")).toMatchObject({ entry: { text: "Answer to two." } });
    expect(await turn("bob", crypto.randomUUID(), bobs, "three")).toMatchObject({ entry: { text: "Answer to three." } });
    expect(await turn("carol", carols, second, "four")).toMatchObject({ entry: { text: "Answer to four." } });
    // Each key's requests are its owner's turns, and only theirs (the fake files requests by key).
    const asked = async (key: string) =>
      (await requests(llm, key)).map((r) =>
        JSON.stringify(r.body.contents)
          .match(/"text":"(one|two|three|four)"/g)
          ?.at(-1),
      );
    expect(await asked(first)).toEqual(['"text":"one"']);
    expect(await asked(second)).toEqual(['"text":"two"', '"text":"four"']);
    expect(await asked(bobs)).toEqual(['"text":"three"']);
    expect((await call(`/api/my-providers/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`/api/my-providers/${id}`, { method: "DELETE" }, "bob")).status).toBe(204);
  });

  it("keeps a user's provider to that user: another never sees it nor chooses it", async () => {
    const key = uniqueKey("own-private");
    const id = `mine${crypto.randomUUID().slice(0, 6)}`;
    expect((await send("POST", "/api/my-providers", { id, kind: "anthropic", baseUrl: llm, apiKey: key, models: ["c-1"] })).status).toBe(201);
    const theirs = await call("/api/my-providers", {}, "bob");
    expect(theirs.body).toEqual({ providers: [] });
    expect((await call("/api/models", {}, "bob")).text).not.toContain(id);
    const socket = await openSession(crypto.randomUUID(), "bob");
    const from = socket.received.length;
    socket.send({ type: "set_model", provider: `user:${id}`, model: "c-1" });
    expect(await socket.next((m) => m.type === "error", from)).toMatchObject({
      code: "model_not_available",
      message: expect.stringContaining(`there is no model provider "user:${id}"`),
    });
    expect(JSON.stringify(socket.received)).not.toContain(key);
    socket.close();
    expect((await call(`/api/my-providers/${id}`, { method: "DELETE" }, "bob")).status).toBe(404);
    expect((await call(`/api/my-providers/${id}`, { method: "DELETE" })).status).toBe(204);
  });
});
