// The HTTP API inside workerd: typed bodies, stable error codes, no secrets.
import type { TestUser } from "../test-users";
import { workerFetch } from "../worker-fetch";
import { describe, expect, inject, it } from "vitest";

const root = inject("fsRoot");
const token = inject("bridgeToken");

async function json(path: string, init?: RequestInit, user: TestUser = "alice"): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await workerFetch(path, init, user);
  expect(response.headers.get("content-type")).toContain("application/json");
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const post = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("HTTP API", () => {
  it("reports health with the configured model", async () => {
    expect(await json("/api/health")).toEqual({
      status: 200,
      body: { ok: true, service: "edgehost", model: { provider: "gemini", model: "gemini-2.5-flash" } },
    });
  });

  it("lists servers with state, tools and approval needs, and never the bridge token", async () => {
    const { status, body } = await json("/api/servers");
    expect(status).toBe(200);
    const servers = body.servers as { name: string; state: string; tools: { qualifiedName: string; needsApproval: boolean }[]; alwaysAllow: string[] }[];
    const fs = servers.find((s) => s.name === "filesystem");
    expect(fs).toMatchObject({
      state: "ready",
      transport: "streamable-http",
      toolCount: 14,
      alwaysAllow: ["list_directory", "read_text_file", "list_allowed_directories"],
    });
    expect(fs?.tools.find((t) => t.qualifiedName === "filesystem.list_directory")?.needsApproval).toBe(false);
    expect(fs?.tools.find((t) => t.qualifiedName === "filesystem.write_file")?.needsApproval).toBe(true);
    expect(JSON.stringify(body)).not.toContain(token);
  });

  it("calls a tool directly, with the same validation and approval policy", async () => {
    const listed = await json("/api/tools/filesystem.list_directory", post({ arguments: { path: root } }));
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain("[FILE] notes.txt");
    expect(await json("/api/tools/filesystem.list_directory", post({ arguments: { path: 42 } }))).toMatchObject({
      status: 400,
      body: { error: { code: "tool_arguments", issues: [{ path: "path", message: "expected string, got number" }] } },
    });
    expect(await json("/api/tools/filesystem.get_file_info", post({ arguments: { path: `${root}/notes.txt` } }))).toMatchObject({
      status: 403,
      body: { error: { code: "approval_required" } },
    });
    const approved = await json("/api/tools/filesystem.get_file_info", post({ arguments: { path: `${root}/notes.txt` }, approved: true }));
    expect(approved.status).toBe(200);
    expect(await json("/api/tools/filesystem.nope", post({ arguments: {} }))).toMatchObject({ status: 404, body: { error: { code: "tool_not_found" } } });
    expect(await json("/api/tools/nodots", post({}))).toMatchObject({ status: 400, body: { error: { code: "bad_tool_name" } } });
    expect(
      await json("/api/tools/filesystem.list_directory", { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" }),
    ).toMatchObject({ status: 400, body: { error: { code: "bad_json" } } });
  });

  it("remembers 'always allow' for direct calls in the caller's own console session only", async () => {
    const info = (user: TestUser, extra: Record<string, unknown> = {}) =>
      json("/api/tools/filesystem.get_file_info", post({ arguments: { path: `${root}/notes.txt` }, ...extra }), user);
    const needsApproval = async (user: TestUser) => {
      const servers = (await json("/api/servers", undefined, user)).body.servers as { name: string; tools: { name: string; needsApproval: boolean }[] }[];
      return servers.find((s) => s.name === "filesystem")?.tools.find((t) => t.name === "get_file_info")?.needsApproval;
    };
    expect(await needsApproval("bob")).toBe(true);
    expect((await info("bob", { approved: true, remember: true })).status).toBe(200);
    expect(await needsApproval("bob")).toBe(false);
    expect((await info("bob")).status).toBe(200);
    // Another user's console is untouched.
    expect(await needsApproval("carol")).toBe(true);
    expect((await info("carol")).status).toBe(403);
  });

  it("records direct calls in the session they name, and counts them in metrics", async () => {
    const { id } = (await json("/sessions", post({}))).body as { id: string };
    await json("/api/tools/filesystem.list_directory", post({ arguments: { path: root }, sessionId: id }));
    const history = await json(`/sessions/${id}/history`);
    expect((history.body.entries as { kind: string }[]).map((e) => e.kind)).toEqual(["tool_call", "tool_result"]);
    const metrics = await json(`/api/metrics?session=${id}`);
    expect(metrics.body).toMatchObject({ servers: { filesystem: { calls: 1, errors: 0, tools: { list_directory: { calls: 1 } } } } });
  });

  it("answers unknown routes and bad ids with JSON errors", async () => {
    expect(await json("/api/nope")).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    expect(await json("/sessions/bad%20id/history")).toMatchObject({ status: 400, body: { error: { code: "bad_session_id" } } });
    expect(await json("/api/servers?session=bad%20id")).toMatchObject({ status: 400, body: { error: { code: "bad_session_id" } } });
    expect(await json("/api/metrics?session=bad%20id")).toMatchObject({ status: 400, body: { error: { code: "bad_session_id" } } });
    expect(await json("/sessions/x/ws")).toMatchObject({ status: 426, body: { error: { code: "upgrade_required" } } });
    expect(await json("/sessions", { method: "POST" })).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
  });
});
