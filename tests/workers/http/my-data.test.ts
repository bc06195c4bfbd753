// A user's own data through the Worker in real workerd: renaming a session, exporting
// every session (JSON and Markdown), deleting all sessions at once and the account's
// data; and none of it reaches another user's sessions.
import { describe, expect, it } from "vitest";
import { workerFetch } from "../worker-fetch";
import type { TestUser } from "../test-users";

const json = { "content-type": "application/json" };
const newSession = async (user: TestUser) =>
  ((await (await workerFetch("/sessions", { method: "POST", headers: json, body: "{}" }, user)).json()) as { id: string }).id;
const listed = async (user: TestUser) =>
  ((await (await workerFetch("/api/sessions", {}, user)).json()) as { sessions: { id: string; title: string | null }[] }).sessions;
const rename = (id: string, title: unknown, user: TestUser) =>
  workerFetch(`/sessions/${id}`, { method: "PATCH", headers: json, body: JSON.stringify({ title }) }, user);

describe("a user's own data", () => {
  it("renames a session (trimmed, at most 80 characters), and only its owner can", async () => {
    const id = await newSession("carol");
    const renamed = await rename(id, "  Trip planning  ", "carol");
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ id, title: "Trip planning" });
    expect((await listed("carol")).find((s) => s.id === id)?.title).toBe("Trip planning");
    // Another user's rename is the same 404 as a session that does not exist.
    expect((await rename(id, "mine now", "bob")).status).toBe(404);
    expect((await listed("carol")).find((s) => s.id === id)?.title).toBe("Trip planning");
    const bad = await rename(id, "", "carol");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    expect((await rename(id, "x".repeat(81), "carol")).status).toBe(400);
  });

  it("exports every session of the caller as JSON and as Markdown, and nobody else's", async () => {
    const mine = await newSession("carol");
    await rename(mine, "Exported one", "carol");
    const theirs = await newSession("bob");
    const exported = await workerFetch("/api/export", {}, "carol");
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-disposition")).toMatch(/^attachment; filename="edgehost-export-\d{4}-\d{2}-\d{2}\.json"$/);
    const body = (await exported.json()) as { user: { name: string }; sessions: { id: string; title: string; entries: unknown[] }[]; servers: unknown[] };
    expect(body.user.name).toBe("carol");
    expect(body.sessions.map((s) => s.id)).toContain(mine);
    expect(body.sessions.map((s) => s.id)).not.toContain(theirs);
    expect(body.sessions.find((s) => s.id === mine)).toMatchObject({ title: "Exported one", entries: [] });
    const markdown = await workerFetch("/api/export?format=markdown", {}, "carol");
    expect(markdown.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = await markdown.text();
    expect(text).toContain("# edgehost: carol's sessions");
    expect(text).toContain("## Exported one");
    expect(text).not.toContain(theirs);
  });

  it("deletes all of the caller's sessions at once, leaving other users' alone", async () => {
    await newSession("carol");
    const theirs = await newSession("bob");
    const before = (await listed("carol")).length;
    expect(before).toBeGreaterThan(0);
    const deleted = await workerFetch("/api/sessions", { method: "DELETE" }, "carol");
    expect(await deleted.json()).toEqual({ deleted: before });
    expect(await listed("carol")).toEqual([]);
    expect((await listed("bob")).map((s) => s.id)).toContain(theirs);
    expect((await workerFetch(`/sessions/${theirs}/history`, {}, "bob")).status).toBe(200);
  });

  it("deletes the account's data: sessions and history gone, the user can start again", async () => {
    const id = await newSession("dave");
    await rename(id, "to be forgotten", "dave");
    // Something in its history: a direct call is recorded in the session.
    const call = await workerFetch(
      "/api/tools/filesystem.list_allowed_directories",
      { method: "POST", headers: json, body: JSON.stringify({ arguments: {}, sessionId: id }) },
      "dave",
    );
    expect(call.status).toBe(200);
    const history = async () => ((await (await workerFetch(`/sessions/${id}/history`, {}, "dave")).json()) as { entries: unknown[] }).entries;
    expect((await history()).length).toBeGreaterThan(0);
    const gone = await workerFetch("/api/account", { method: "DELETE" }, "dave");
    expect(gone.status).toBe(200);
    expect(((await gone.json()) as { deleted: { sessions: number } }).deleted.sessions).toBeGreaterThanOrEqual(1);
    expect(await listed("dave")).toEqual([]);
    // The id stays dave's (no one else can ever claim it), with nothing in it.
    expect(await history()).toEqual([]);
    expect(((await workerFetch("/api/my-servers", {}, "dave").then((r) => r.json())) as { servers: unknown[] }).servers).toEqual([]);
    // Still a user of the deployment: a new session works.
    expect(typeof (await newSession("dave"))).toBe("string");
  });
});
