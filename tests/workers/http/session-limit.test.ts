// A user keeps at most MAX_SESSIONS_PER_USER sessions, through the real Worker
// entry in workerd with a small cap: past it a new session (POST /sessions, or a
// WebSocket opening a made-up id) answers 429 too_many_sessions, and deleting one
// makes room for one. Nothing is dropped from the list behind the user's back.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readSettings } from "../../../src/config/settings";
import worker from "../../../src/index";
import { authHeaders, type TestUser } from "../test-users";
import { WORKER_ORIGIN } from "../worker-fetch";

const CAP = 3;

/** A request to the Worker with MAX_SESSIONS_PER_USER set to the small cap. */
async function capped(path: string, init: RequestInit = {}, user: TestUser = "dave"): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(`${WORKER_ORIGIN}${path}`, { ...init, headers: authHeaders(user, init.headers) });
  const response = await worker.fetch(request, { ...env, MAX_SESSIONS_PER_USER: String(CAP) } as never, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}
const create = (user: TestUser = "dave") => capped("/sessions", { method: "POST" }, user);

describe("MAX_SESSIONS_PER_USER", () => {
  it("refuses a new session past the cap with a typed error saying what to do", async () => {
    const made = [await create(), await create(), await create()];
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    const ids = await Promise.all(made.map(async (r) => ((await r.json()) as { id: string }).id));
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: { code: "too_many_sessions", message: `You have ${CAP} sessions, the most one user may keep: delete old sessions to start new ones.` },
    });
    // A made-up id opened as a WebSocket is a new session too; the user's own still open.
    expect((await capped(`/sessions/${crypto.randomUUID()}/ws`, { headers: { upgrade: "websocket" } })).status).toBe(429);
    const own = await capped(`/sessions/${ids[0]}/ws`, { headers: { upgrade: "websocket" } });
    expect(own.status).toBe(101);
    own.webSocket?.accept();
    own.webSocket?.close();
    // All three kept and listed: none dropped to make room.
    const listed = (await (await capped("/api/sessions")).json()) as { sessions: { id: string }[] };
    expect(listed.sessions.map((s) => s.id).sort()).toEqual([...ids].sort());
    // Another user has a cap of their own.
    expect((await create("carol")).status).toBe(201);
    // Deleting one makes room for exactly one.
    expect((await capped(`/sessions/${ids[1]}`, { method: "DELETE" })).status).toBe(204);
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(429);
  });

  it("lets parallel creations take the last places without passing the cap", async () => {
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => create("bob")))).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(CAP);
    expect(statuses.filter((s) => s === 429)).toHaveLength(8 - CAP);
  });

  it("defaults to 1,000 and reports a bad value by name", () => {
    expect(readSettings({}).settings.MAX_SESSIONS_PER_USER).toBe(1_000);
    const bad = readSettings({ MAX_SESSIONS_PER_USER: "lots" });
    expect(bad.settings.MAX_SESSIONS_PER_USER).toBe(1_000);
    expect(bad.problems).toEqual([expect.stringMatching(/^MAX_SESSIONS_PER_USER is invalid \(.*\); using the default$/)]);
  });
});
