// SESSION_TTL_DAYS (30 in this project): an idle session deletes itself when its alarm
// fires, the real ChatSession and UserAccount objects; a session used since only moves
// its alarm on. The alarm's callback is called with a date 31 days on, not waited for.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { ChatSession } from "../../../src/session/ChatSession";
import { openSession, workerFetch } from "../worker-fetch";

const DAY = 24 * 60 * 60_000;
const json = { "content-type": "application/json" };
const sessions = () => (env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>;
const listed = async () => ((await (await workerFetch("/api/sessions", {}, "bob")).json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id);

async function usedSession(): Promise<string> {
  const id = ((await (await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" }, "bob")).json()) as { id: string }).id;
  // An entry in its history: a direct call is recorded in the session.
  const call = await workerFetch(
    "/api/tools/filesystem.list_allowed_directories",
    { method: "POST", headers: json, body: JSON.stringify({ arguments: {}, sessionId: id }) },
    "bob",
  );
  expect(call.status).toBe(200);
  // Its first socket schedules the expiry alarm.
  (await openSession(id, "bob")).close();
  return id;
}

const expire = (id: string, at: number) =>
  runInDurableObject(sessions().get(sessions().idFromName(id)), (instance: ChatSession) => instance.expireIfIdle(undefined, undefined, at));

describe("an idle session", () => {
  it("has an expiry alarm once it was opened", async () => {
    const id = await usedSession();
    const callbacks = await runInDurableObject(sessions().get(sessions().idFromName(id)), (instance: ChatSession) =>
      instance.getSchedules().map((s) => s.callback),
    );
    expect(callbacks).toContain("expireIfIdle");
  });

  it("deletes itself after SESSION_TTL_DAYS without a new entry, and leaves its owner's list", async () => {
    const id = await usedSession();
    expect(await listed()).toContain(id);
    expect(await expire(id, Date.now() + 31 * DAY)).toBe(true);
    expect(await listed()).not.toContain(id);
    const history = (await (await workerFetch(`/sessions/${id}/history`, {}, "bob")).json()) as { entries: unknown[] };
    expect(history.entries).toEqual([]);
  });

  it("is kept while it was used within SESSION_TTL_DAYS", async () => {
    const id = await usedSession();
    expect(await expire(id, Date.now() + 29 * DAY)).toBe(false);
    expect(await listed()).toContain(id);
    const history = (await (await workerFetch(`/sessions/${id}/history`, {}, "bob")).json()) as { entries: unknown[] };
    expect(history.entries.length).toBeGreaterThan(0);
  });
});
