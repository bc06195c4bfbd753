// Remote MCP servers a user manages at runtime, through the real Worker in
// workerd against server-everything over Streamable HTTP (started by global setup):
// add, list (secrets masked), edit, test, restart, remove, field-level errors,
// and one user's servers never reaching another's sessions.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { userAccount } from "../../../src/users/account";
import { MASK, type StoredUserServer } from "../../../src/users/user-servers";
import type { TestUser } from "../test-users";
import { workerFetch } from "../worker-fetch";

const everything = inject("everythingUrl");
const json = { "content-type": "application/json" };

async function call(path: string, init: RequestInit = {}, user: TestUser = "alice"): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await workerFetch(path, init, user);
  return { status: response.status, body: response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>) };
}
const post = (path: string, body: unknown, user: TestUser = "alice") => call(path, { method: "POST", headers: json, body: JSON.stringify(body) }, user);
const put = (path: string, body: unknown, user: TestUser = "alice") => call(path, { method: "PUT", headers: json, body: JSON.stringify(body) }, user);
const serverNames = async (session: string, user: TestUser = "alice") =>
  ((await call(`/api/servers?session=${session}`, {}, user)).body.servers as { name: string; state: string; toolCount: number }[]).map(
    (s) => `${s.name}:${s.state}`,
  );

describe("runtime MCP servers", () => {
  it("adds a server, masks its secret headers, serves it in the user's sessions, and removes it", async () => {
    const name = `ev${crypto.randomUUID().slice(0, 6)}`;
    const added = await post("/api/my-servers", { name, url: everything, headers: { "X-Api-Key": "s3cret-value" }, alwaysAllow: ["echo"] });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ server: { name, url: everything, type: "http", headers: { "X-Api-Key": MASK } }, test: { ok: true } });
    expect((added.body.test as { toolCount: number }).toolCount).toBeGreaterThan(5);
    const listed = await call("/api/my-servers");
    expect(JSON.stringify(listed.body)).not.toContain("s3cret-value");
    expect(listed.body).toMatchObject({ servers: [{ name, headers: { "X-Api-Key": MASK } }], deployment: expect.arrayContaining(["filesystem"]) });

    // A masked value sent back keeps the stored secret; a new value replaces it.
    expect((await put(`/api/my-servers/${name}`, { name, url: everything, headers: { "X-Api-Key": MASK }, timeout: 5 })).status).toBe(200);
    const stored = await userAccount(env as unknown as Env, "token:alice").getServer(name);
    expect(stored).toMatchObject({ headers: { "X-Api-Key": "s3cret-value" }, timeout: 5 });

    const { id } = (await post("/sessions", {})).body as { id: string };
    expect(await serverNames(id)).toContain(`${name}:ready`);
    const tested = (await post(`/api/my-servers/${name}/test`, {})).body as { test: { ok: boolean; toolCount: number } };
    expect(tested).toMatchObject({ test: { ok: true } });
    // One count for one server: the test declares what a chat declares, so server-everything
    // offers it the tools it offers the chat (its elicitation and sampling tools included).
    const inChat = ((await call(`/api/servers?session=${id}`)).body.servers as { name: string; toolCount: number }[]).find((s) => s.name === name);
    expect(tested.test.toolCount).toBe(inChat?.toolCount);
    expect((added.body.test as { toolCount: number }).toolCount).toBe(inChat?.toolCount);

    expect((await call(`/api/my-servers/${name}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`/api/my-servers/${name}`, { method: "DELETE" })).status).toBe(404);
    expect((await post(`/api/servers/restart?session=${id}`, {})).status).toBe(204);
    expect((await serverNames(id)).some((s) => s.startsWith(`${name}:`))).toBe(false);
  });

  it("keeps a masked header value only at the URL it was saved with (issue 33)", async () => {
    const name = `bound${crypto.randomUUID().slice(0, 6)}`;
    const saved = { name, url: `${everything}/mcp`, headers: { Authorization: "Bearer bound-0123456789" }, disabled: true };
    expect((await post("/api/my-servers", saved)).status).toBe(201);
    const moved = await put(`/api/my-servers/${name}`, { ...saved, url: `${everything}/other`, headers: { Authorization: MASK } });
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({
      error: { code: "secret_required", issues: expect.arrayContaining([expect.objectContaining({ path: "headers.Authorization" })]) },
    });
    // The same URL keeps it; a new URL with a new value is the owner's choice.
    expect((await put(`/api/my-servers/${name}`, { ...saved, headers: { Authorization: MASK } })).status).toBe(200);
    expect((await put(`/api/my-servers/${name}`, { ...saved, url: `${everything}/other`, headers: { Authorization: "Bearer new" } })).status).toBe(200);
    expect((await put(`/api/my-servers/${name}`, { ...saved, headers: { Authorization: MASK } }, "bob")).status).toBe(404);
    expect((await call(`/api/my-servers/${name}`, { method: "DELETE" })).status).toBe(204);
  });

  it("answers bad entries with field-level errors", async () => {
    const name = `dup${crypto.randomUUID().slice(0, 6)}`;
    expect((await post("/api/my-servers", { name, url: everything })).status).toBe(201);
    const cases: [string, unknown, number, string, string][] = [
      ["duplicate name", { name, url: everything }, 409, "duplicate_name", "name"],
      ["name of an mcp.json server", { name: "filesystem", url: everything }, 409, "duplicate_name", "name"],
      ["bad URL", { name: "bad-url", url: "not a url" }, 400, "bad_request", "url"],
      ["not http(s)", { name: "bad-scheme", url: "ftp://example.com/mcp" }, 400, "bad_request", "url"],
      ["unreachable host", { name: "nowhere", url: "http://127.0.0.1:9/mcp" }, 400, "server_unreachable", "url"],
      ["oversized headers", { name: "big", url: everything, headers: { "X-Big": "x".repeat(9_000) } }, 400, "bad_request", "headers"],
      [
        "too many headers",
        { name: "many", url: everything, headers: Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`X-H${i}`, "v"])) },
        400,
        "bad_request",
        "headers",
      ],
      ["bad name", { name: "no spaces", url: everything }, 400, "bad_request", "name"],
      ["a Worker secret by reference", { name: "leak", url: everything, headers: { "X-Key": "${GEMINI_API_KEY}" } }, 400, "bad_request", 'headers["X-Key"]'],
      ["bad timeout", { name: "slow", url: everything, timeout: -1 }, 400, "bad_request", "timeout"],
    ];
    for (const [what, body, status, code, path] of cases) {
      const answer = await post("/api/my-servers", body);
      expect({ what, status: answer.status, code: (answer.body.error as { code: string }).code }).toEqual({ what, status, code });
      const issues = (answer.body.error as { issues?: { path: string; message: string }[] }).issues ?? [];
      expect({ what, paths: issues.map((i) => i.path) }).toEqual({ what, paths: expect.arrayContaining([path]) });
    }
    expect((await put("/api/my-servers/never-added", { name: "never-added", url: everything })).status).toBe(404);
    // The mask only keeps a value that exists: a new header sent masked is an error, not an empty or masked secret.
    const masked = await put(`/api/my-servers/${name}`, { name, url: everything, headers: { "X-New": MASK } });
    expect(masked).toMatchObject({
      status: 400,
      body: { error: { issues: [{ path: 'headers["X-New"]', message: "no stored value to keep: enter the value" }] } },
    });
    expect((await call(`/api/my-servers/${name}`, { method: "DELETE" })).status).toBe(204);
  });

  it("says what it tried and what to check when a server does not answer", async () => {
    const answer = await post("/api/my-servers", { name: "nowhere", url: "http://127.0.0.1:9/mcp" });
    const error = answer.body.error as { code: string; message: string; issues: { path: string; message: string }[] };
    expect({ status: answer.status, code: error.code }).toEqual({ status: 400, code: "server_unreachable" });
    // The host, the transport tried, the runtime's reason; then the URL, where it must be reachable from, auth.
    expect(error.message).toMatch(
      /^could not reach 127\.0\.0\.1:9 from the Worker over Streamable HTTP, asking which MCP version it speaks \(Network connection lost\)\. Check the URL, /,
    );
    // workerd's test requests are not loopback ones: the deployed wording (the e2e test has the local one).
    expect(error.message).toContain("reachable from the internet, where the Worker runs (not only from your computer)");
    expect(error.message).toContain("header the server needs to sign you in");
    expect(error.issues).toEqual([
      {
        path: "url",
        message: expect.stringMatching(/^no answer from 127\.0\.0\.1:9 over Streamable HTTP, asking which MCP version it speaks: Network connection lost$/),
      },
    ]);
    expect(await userAccount(env as unknown as Env, "token:alice").getServer("nowhere")).toBeUndefined();
  });

  it("keeps one user's servers out of another user's list and sessions", async () => {
    const name = `mine${crypto.randomUUID().slice(0, 6)}`;
    expect((await post("/api/my-servers", { name, url: everything }, "alice")).status).toBe(201);
    const bob = await call("/api/my-servers", {}, "bob");
    expect((bob.body.servers as { name: string }[]).map((s) => s.name)).not.toContain(name);
    expect((await call(`/api/my-servers/${name}`, { method: "DELETE" }, "bob")).status).toBe(404);
    expect((await post(`/api/my-servers/${name}/test`, {}, "bob")).status).toBe(404);
    const { id } = (await post("/sessions", {}, "bob")).body as { id: string };
    expect((await serverNames(id, "bob")).some((s) => s.startsWith(`${name}:`))).toBe(false);
    // Alice's copy is untouched.
    await runInDurableObject(userAccount(env as unknown as Env, "token:alice"), (instance) => {
      expect((instance as unknown as { getServer(n: string): StoredUserServer | undefined }).getServer(name)).toMatchObject({ name });
    });
    expect((await call(`/api/my-servers/${name}`, { method: "DELETE" })).status).toBe(204);
  });
});
