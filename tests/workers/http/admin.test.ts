// The operator view (/admin, /api/admin) on the real Worker, sessions and operations
// object: a user's turn with tool calls, one failing, and a failed turn reach the view
// with their ids; only the users named in ADMIN_USERS (dave here) see it, everyone else
// gets the 404 of a path that does not exist.
import { describe, expect, inject, it, vi } from "vitest";
import type { AdminView } from "../../../src/http/admin-view";
import { reply, script } from "../../fixtures/fake-llm-script";
import type { SessionClient } from "../../fixtures/session-client";
import { openSession, workerFetch } from "../worker-fetch";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");
const root = inject("fsRoot");

async function view(): Promise<AdminView> {
  const response = await workerFetch("/api/admin", {}, "dave");
  expect(response.status).toBe(200);
  return (await response.json()) as AdminView;
}

async function turn(socket: SessionClient, text: string) {
  const from = socket.received.length;
  socket.send({ type: "message", text });
  return socket.turnEnd(from);
}

describe("/admin", () => {
  it("is a 404 like any unknown path for a user not named in ADMIN_USERS", async () => {
    const unknown = await workerFetch("/no-such-page", {}, "alice");
    for (const path of ["/admin", "/api/admin"]) {
      const response = await workerFetch(path, {}, "alice");
      expect(response.status).toBe(404);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code).toBe("not_found");
      expect(Object.keys(body)).toEqual(Object.keys((await unknown.clone().json()) as object));
    }
  });

  it("shows a user's turns, their tools' metrics across sessions, the servers' health and the last errors with their ids", async () => {
    await script(llm, KEY, [
      reply.callReply("filesystem__list_directory", { path: root }),
      reply.callReply("filesystem__list_directory", { path: "/etc" }),
      reply.text("Listed."),
      reply.error(400, {}, { error: { code: 400, message: "the model refuses", status: "INVALID_ARGUMENT" } }),
    ]);
    const socket = await openSession(crypto.randomUUID(), "alice");
    const listed = await turn(socket, "list my files");
    expect(listed.end.reason).toBe("complete");
    const failed = await turn(socket, "and now fail");
    expect(failed.end.reason).toBe("error");
    socket.close();

    await vi.waitFor(
      async () => {
        const seen = await view();
        const alice = seen.users.find((u) => u.name === "alice");
        expect(alice?.turns).toBeGreaterThanOrEqual(2);
        expect(alice?.sessions).toBeGreaterThanOrEqual(1);
        expect(alice?.tokensToday).not.toBeNull();
        const tool = seen.tools.find((t) => t.server === "filesystem" && t.tool === "list_directory");
        expect(tool?.calls).toBeGreaterThanOrEqual(2);
        expect(tool?.errors).toBeGreaterThanOrEqual(1);
        expect(tool?.p50Ms).not.toBeNull();
        expect(seen.servers.find((s) => s.name === "filesystem" && s.owner === null)?.state).toBe("ready");
        const toolError = seen.errors.find((e) => e.source === "tool" && e.user === "alice" && e.tool === "list_directory");
        expect(toolError).toMatchObject({ code: "tool_error", server: "filesystem", session: expect.any(String), turnId: expect.any(String) });
        const turnError = seen.errors.find((e) => e.source === "session" && e.user === "alice");
        expect(turnError?.turnId).toBe(failed.end.turnId);
        // The request id of the socket the turn came on: what Workers Logs is searched by.
        expect(turnError?.requestId).toEqual(expect.any(String));
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it("is a page for the operator, with the same figures and a policy that runs no script", async () => {
    const response = await workerFetch("/admin", {}, "dave");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const page = await response.text();
    for (const heading of ["Last errors", "Users", "Servers", "Tools across sessions"]) expect(page).toContain(`<h2>${heading}</h2>`);
    expect(page).toContain("Signed in as dave");
    expect(page).not.toContain("<script");
  });

  it("keeps a failed request's error (5xx) with its request id, and not a refusal (4xx)", async () => {
    const workerErrors = async () => (await view()).errors.filter((e) => e.source === "worker" && e.user === "bob");
    const json = { "content-type": "application/json" };
    const refused = await workerFetch("/api/tools/filesystem.list_directory", { method: "POST", body: "{", headers: json }, "bob");
    expect(refused.status).toBe(400);
    // A server of bob's own with a short timeout, and a tool that outlasts it: the call ends in a 504.
    const server = JSON.stringify({ name: "slow", url: inject("everythingUrl"), timeout: 0.5 });
    expect((await workerFetch("/api/my-servers", { method: "POST", headers: json, body: server }, "bob")).status).toBe(201);
    const call = JSON.stringify({ arguments: { duration: 3, steps: 3 }, approved: true });
    const failed = await workerFetch("/api/tools/slow.trigger-long-running-operation", { method: "POST", headers: json, body: call }, "bob");
    expect(failed.status).toBe(504);
    const { error } = (await failed.json()) as { error: { code: string } };
    await vi.waitFor(async () => expect(await workerErrors()).toHaveLength(1), { timeout: 10_000, interval: 100 });
    const [kept] = await workerErrors();
    expect(kept).toMatchObject({
      code: error.code,
      message: "POST /api/tools/slow.trigger-long-running-operation answered 504",
      requestId: expect.any(String),
    });
  });
});
