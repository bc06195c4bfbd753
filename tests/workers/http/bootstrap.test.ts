// GET /api/bootstrap inside workerd: the page's five load-time reads in one answer, each
// part the same as its own route's; the caller's own sessions only; signed out, 401.
import { SELF } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { scriptModels, uniqueKey } from "../../fixtures/fake-llm-script";
import type { TestUser } from "../test-users";
import { WORKER_ORIGIN, workerFetch } from "../worker-fetch";

async function json(path: string, user: TestUser = "alice"): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await workerFetch(path, {}, user);
  expect(response.headers.get("content-type")).toContain("application/json");
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function newSession(user: TestUser): Promise<string> {
  const response = await workerFetch("/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }, user);
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

const llm = inject("fakeLlmUrl");
const ids = (sessions: unknown) => (sessions as { id: string }[]).map((s) => s.id);

describe("GET /api/bootstrap", () => {
  it("answers what /api/me, /api/sessions, /oauth/servers, /api/models and /api/shared-with-me answer, in one", async () => {
    const made = await newSession("carol");
    const [boot, me, sessions, oauth, models, shared, presets] = await Promise.all([
      json("/api/bootstrap", "carol"),
      json("/api/me", "carol"),
      json("/api/sessions", "carol"),
      json("/oauth/servers", "carol"),
      json("/api/models", "carol"),
      json("/api/shared-with-me", "carol"),
      json("/api/presets", "carol"),
    ]);
    expect(boot.status).toBe(200);
    // Carol connected no app to /mcp: the page does not look for apps' questions.
    const apps = { connected: 0, questions: 0 };
    expect(boot.body).toEqual({
      me: me.body,
      sessions: sessions.body.sessions,
      oauth: oauth.body,
      models: models.body,
      apps,
      shared: shared.body.chats,
      presets: presets.body.presets,
    });
    expect(ids(boot.body.sessions)).toContain(made);
    expect(boot.body.me).toMatchObject({ user: { name: "carol" } });
    // The deployment's model is listed (no own providers to wait for: never left out).
    expect((boot.body.models as { models: unknown[] }).models.length).toBeGreaterThan(0);
  });

  it("lists the chats others invited the caller to, and only theirs", async () => {
    const made = await newSession("dave");
    const invite = await workerFetch(
      `/sessions/${made}/people`,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "frank", role: "viewer" }) },
      "dave",
    );
    expect(invite.status).toBe(201);
    const frank = await json("/api/bootstrap", "frank");
    expect(frank.body.shared).toEqual(expect.arrayContaining([expect.objectContaining({ sessionId: made, ownerName: "dave", role: "viewer" })]));
    // Not in the owner's own, nor in an outsider's.
    for (const other of ["dave", "bob"] as const) expect(JSON.stringify((await json("/api/bootstrap", other)).body.shared)).not.toContain(made);
  });

  it("carries the caller's presets (a new chat's welcome offers them), nobody else's", async () => {
    const made = await workerFetch(
      "/api/presets",
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "Boot check", instructions: "Be brief." }) },
      "dave",
    );
    expect(made.status).toBe(201);
    const { preset } = (await made.json()) as { preset: { id: string } };
    expect((await json("/api/bootstrap", "dave")).body.presets).toContainEqual({ id: preset.id, name: "Boot check", instructions: "Be brief." });
    expect(JSON.stringify((await json("/api/bootstrap", "frank")).body.presets)).not.toContain(preset.id);
    expect((await workerFetch(`/api/presets/${preset.id}`, { method: "DELETE" }, "dave")).status).toBe(204);
  });

  it("leaves the models out (null) when the caller's own provider is slow to list them; GET /api/models still has them", async () => {
    const key = uniqueKey("slow-models");
    await scriptModels(llm, key, ["slow-one"], 3_000);
    const id = `sl${crypto.randomUUID().slice(0, 6)}`;
    const added = await workerFetch(
      "/api/my-providers",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id, kind: "openai", baseUrl: `${llm}/v1`, apiKey: key, defaultModel: "slow-one" }),
      },
      "erin",
    );
    expect(added.status).toBe(201);
    const boot = await json("/api/bootstrap", "erin");
    expect(boot.status).toBe(200);
    expect(boot.body.models).toBeNull();
    // The rest is all there; and a GET /api/models after it is not left waiting on the listing it began.
    expect(boot.body.me).toMatchObject({ user: { name: "erin" } });
    expect(Array.isArray(boot.body.sessions)).toBe(true);
    const models = await json("/api/models", "erin");
    expect((models.body.models as { provider: string; model: string }[]).filter((m) => m.provider === `user:${id}`)).toEqual([
      expect.objectContaining({ model: "slow-one" }),
    ]);
  });

  it("lists only the caller's own sessions", async () => {
    const bobs = await newSession("bob");
    const carols = await newSession("carol");
    const forCarol = await json("/api/bootstrap", "carol");
    const forBob = await json("/api/bootstrap", "bob");
    expect(ids(forCarol.body.sessions)).toContain(carols);
    expect(ids(forCarol.body.sessions)).not.toContain(bobs);
    expect(ids(forBob.body.sessions)).toContain(bobs);
    expect(ids(forBob.body.sessions)).not.toContain(carols);
    expect(forBob.body.me).toMatchObject({ user: { name: "bob" } });
  });

  it("refuses a caller who is not signed in (401 unauthenticated), with nothing of anyone's", async () => {
    const response = await SELF.fetch(`${WORKER_ORIGIN}/api/bootstrap`);
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { code: string }; sessions?: unknown };
    expect(body.error.code).toBe("unauthenticated");
    expect(body.sessions).toBeUndefined();
    const forged = await SELF.fetch(`${WORKER_ORIGIN}/api/bootstrap`, { headers: { authorization: "Bearer not-a-token" } });
    expect(forged.status).toBe(401);
  });
});
