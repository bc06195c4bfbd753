// MCP Apps routes through the real Worker in workerd: ext-apps' example app server
// (server-basic-vanillajs, stdio under the real bridge) added as dave's own server.
// The app's document comes with its CSP as a header, only to the session's owner,
// only for ui:// resources a tool of that server declares; an app's tool call is
// asked on the session's socket like a model's and answers with the result, or an
// error when denied. A tool's `_meta.ui.visibility` keeps app-only tools from the
// model and model-only tools from apps.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appCsp } from "../../../src/http/app-csp";
import { resourceCsp, toolUiResourceUri, toolUiVisibility } from "../../../src/mcp/app-ui";
import type { ServerMessage } from "../../../src/protocol/messages";
import type { TestUser } from "../test-users";
import { reply, requests, script } from "../../fixtures/fake-llm-script";
import { openSession, workerFetch } from "../worker-fetch";

const json = { "content-type": "application/json" };
const APP_URI = "ui://get-time/mcp-app.html";
/** What an app that declares no domains gets: its own inline code, nothing from anywhere. */
const STRICT_CSP =
  "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; frame-src 'none'; base-uri 'none'; worker-src 'none'; object-src 'none'; form-action 'none'; frame-ancestors 'self'";

const post = (path: string, body: unknown, user: TestUser = "dave") => workerFetch(path, { method: "POST", headers: json, body: JSON.stringify(body) }, user);
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

let session = "";
const resource = (query: string, user: TestUser = "dave", id = session) => workerFetch(`/sessions/${id}/ui-resource?${query}`, {}, user);
const appQuery = (server = "apps", uri = APP_URI) => `server=${encodeURIComponent(server)}&uri=${encodeURIComponent(uri)}`;

const bridged = (name: string) => ({ name, url: `${inject("bridgeUrl")}/servers/${name}/mcp`, headers: { Authorization: `Bearer ${inject("bridgeToken")}` } });

beforeAll(async () => {
  // server-basic-vanillajs, and tests/fixtures/csp-app-server.mjs (declares CSP domains and tool visibility).
  for (const name of ["apps", "probe"]) expect((await post("/api/my-servers", bridged(name))).status).toBe(201);
  session = ((await (await post("/sessions", {})).json()) as { id: string }).id;
});
afterAll(async () => {
  for (const name of ["apps", "probe"]) await workerFetch(`/api/my-servers/${name}`, { method: "DELETE" }, "dave");
});

describe("tools with an app", () => {
  it("keep their ui:// resource in the server list", async () => {
    const { servers } = (await (await workerFetch(`/api/servers?session=${session}`, {}, "dave")).json()) as {
      servers: { name: string; tools: { name: string; uiResourceUri?: string }[] }[];
    };
    expect(servers.find((s) => s.name === "apps")?.tools).toEqual([expect.objectContaining({ name: "get-time", uiResourceUri: APP_URI })]);
    // Tools without one say nothing.
    expect(servers.find((s) => s.name === "filesystem")?.tools.some((t) => "uiResourceUri" in t)).toBe(false);
  });
});

describe("GET /sessions/{id}/ui-resource", () => {
  it("serves the app's HTML with the strict CSP (sandbox included) as a header", async () => {
    const response = await resource(appQuery());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBe(STRICT_CSP);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).toContain("<title>Get Time App</title>");
    expect(html).toContain('id="get-time-btn"');
  });

  it("opens the domains the resource declares (_meta.ui.csp) in their directives", async () => {
    const response = await resource(appQuery("probe", "ui://csp/app.html"));
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp.split("; ")).toEqual(
      STRICT_CSP.split("; ").map((d) =>
        /^(script|style)-src|^(img|font|media)-src/.test(d)
          ? `${d} https://cdn.example.com`
          : d.startsWith("connect-src")
            ? "connect-src https://cdn.example.com"
            : d,
      ),
    );
    expect(await response.text()).toContain('<p id="probe">');
  });

  it("is the session owner's only", async () => {
    const other = await resource(appQuery(), "bob");
    expect(other.status).toBe(404);
    expect(await errorOf(other)).toMatchObject({ code: "not_found" });
    expect((await resource(appQuery(), "dave", crypto.randomUUID())).status).toBe(404);
    expect(await errorOf(await resource(appQuery(), "dave", "bad id!"))).toMatchObject({ code: "bad_session_id" });
  });

  it("refuses what is not a ui:// resource, and ui:// resources no tool of that server declares", async () => {
    const notUi = await resource(appQuery("apps", "file:///etc/passwd"));
    expect(notUi.status).toBe(400);
    expect(await errorOf(notUi)).toEqual({
      code: "not_ui_resource",
      message: '"file:///etc/passwd" is not a ui:// resource: only MCP App resources can be framed',
    });
    const undeclared = await resource(appQuery("apps", "ui://get-time/other.html"));
    expect(undeclared.status).toBe(404);
    expect(await errorOf(undeclared)).toEqual({ code: "not_found", message: 'no tool of server "apps" declares ui://get-time/other.html' });
    // The right URI asked of another server (one the session has, without that tool).
    const otherServer = await resource(appQuery("filesystem"));
    expect(otherServer.status).toBe(404);
    expect(await errorOf(otherServer)).toMatchObject({ code: "not_found", message: `no tool of server "filesystem" declares ${APP_URI}` });
    const unknownServer = await resource(appQuery("nosuch"));
    expect(unknownServer.status).toBe(404);
  });

  it("answers a malformed query with what was wrong", async () => {
    const missing = await resource(`server=apps`);
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toMatchObject({ code: "bad_request", issues: [{ path: "uri" }] });
    const twice = await resource(`${appQuery()}&server=other`);
    expect(twice.status).toBe(400);
    expect(await errorOf(await resource(appQuery("bad name!")))).toMatchObject({ code: "bad_request", issues: [{ path: "server" }] });
  });
});

describe("POST /sessions/{id}/app-tool-call", () => {
  const isApproval = (m: ServerMessage): m is Extract<ServerMessage, { type: "approval_request" }> => m.type === "approval_request";

  it("asks the session's user like a model's call: approved, the app gets the result; denied, an error", async () => {
    const socket = await openSession(session, "dave");
    let from = socket.received.length;
    const approved = post(`/sessions/${session}/app-tool-call`, { server: "apps", tool: "get-time", arguments: {} });
    const question = await socket.next(isApproval, from);
    expect(question).toEqual({
      type: "approval_request",
      turnId: null,
      callId: expect.any(String),
      kind: "tool",
      server: "apps",
      tool: "get-time",
      arguments: {},
      fromApp: true,
    });
    socket.send({ type: "approval", callId: question.callId, approved: true });
    const answer = await approved;
    expect(answer.status).toBe(200);
    const { result } = (await answer.json()) as { result: { content: { type: string; text: string }[]; structuredContent: { time: string } } };
    expect(result.structuredContent.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(result.content).toEqual([{ type: "text", text: result.structuredContent.time }]);

    from = socket.received.length;
    const denied = post(`/sessions/${session}/app-tool-call`, { server: "apps", tool: "get-time" });
    const second = await socket.next(isApproval, from);
    socket.send({ type: "approval", callId: second.callId, approved: false });
    const refusal = await denied;
    expect(refusal.status).toBe(403);
    expect(await errorOf(refusal)).toEqual({ code: "denied", message: "The user denied this tool call." });
    // An app's calls are not part of the conversation.
    const { entries } = (await (await workerFetch(`/sessions/${session}/history`, {}, "dave")).json()) as { entries: unknown[] };
    expect(entries).toEqual([]);
    socket.close();
  });

  it("cancels a pending call by the page's id: its question closes on every page and the call ends as cancelled", async () => {
    const socket = await openSession(session, "dave");
    const from = socket.received.length;
    const id = `c${crypto.randomUUID().slice(0, 8)}`;
    const pending = post(`/sessions/${session}/app-tool-call`, { id, server: "apps", tool: "get-time" });
    const question = await socket.next(isApproval, from);
    expect(question.callId).toBe(`app-${id}`);
    // Not bob's to cancel; an id twice while pending is refused.
    expect((await workerFetch(`/sessions/${session}/app-tool-call/${id}`, { method: "DELETE" }, "bob")).status).toBe(404);
    const twice = await post(`/sessions/${session}/app-tool-call`, { id, server: "apps", tool: "get-time" });
    expect(twice.status).toBe(409);
    expect(await errorOf(twice)).toMatchObject({ code: "duplicate_call" });
    expect((await workerFetch(`/sessions/${session}/app-tool-call/${id}`, { method: "DELETE" }, "dave")).status).toBe(204);
    const answer = await pending;
    expect(answer.status).toBe(499);
    expect(await errorOf(answer)).toEqual({ code: "cancelled", message: "The call was cancelled." });
    expect(await socket.next((m) => m.type === "approval_resolved", from)).toEqual({ type: "approval_resolved", callId: `app-${id}`, approved: false });
    // Nothing pending under that id any more; a malformed id is named.
    expect((await workerFetch(`/sessions/${session}/app-tool-call/${id}`, { method: "DELETE" }, "dave")).status).toBe(404);
    expect(await errorOf(await workerFetch(`/sessions/${session}/app-tool-call/bad%20id`, { method: "DELETE" }, "dave"))).toMatchObject({
      code: "bad_request",
    });
    socket.close();
  });

  it("calls only tools of the app's own server, in the owner's sessions", async () => {
    const foreign = await post(`/sessions/${session}/app-tool-call`, { server: "apps", tool: "read_text_file", arguments: { path: "/etc/passwd" } });
    expect(foreign.status).toBe(404);
    expect(await errorOf(foreign)).toMatchObject({ code: "tool_not_found" });
    expect((await post(`/sessions/${session}/app-tool-call`, { server: "apps", tool: "get-time" }, "bob")).status).toBe(404);
    const bad = await post(`/sessions/${session}/app-tool-call`, { server: "apps", arguments: [] });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({
      code: "bad_request",
      issues: expect.arrayContaining([expect.objectContaining({ path: "tool" }), expect.objectContaining({ path: "arguments" })]),
    });
  });
});

describe("tool visibility (_meta.ui.visibility)", () => {
  const llm = inject("fakeLlmUrl");
  const KEY = inject("sessionLlmKey");

  it("keeps an app-only tool from the model, and a model-only tool from the app", async () => {
    await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
    await script(llm, KEY, [reply.text("noted")]);
    const id = ((await (await post("/sessions", {})).json()) as { id: string }).id;
    const socket = await openSession(id, "dave");
    socket.send({ type: "message", text: "which tools?" });
    await socket.next((m) => m.type === "turn_end");
    const body = (await requests(llm, KEY)).at(-1)?.body as { tools?: { functionDeclarations?: { name: string }[] }[] };
    const names = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => d.name);
    expect(names.filter((n) => n.startsWith("probe__")).sort()).toEqual(["probe__model-only", "probe__probe"]);
    // Nor does the system prompt name it (it lists no tools: the declarations describe them).
    const system = JSON.stringify((await requests(llm, KEY)).at(-1)?.body.systemInstruction);
    expect(system).not.toContain("app-only");
    socket.close();

    const modelOnly = await post(`/sessions/${id}/app-tool-call`, { server: "probe", tool: "model-only" });
    expect(modelOnly.status).toBe(404);
    expect(await errorOf(modelOnly)).toMatchObject({ code: "tool_not_found" });
    // The app-only tool is its app's to call (asked for approval as any app call).
    const again = await openSession(id, "dave");
    const from = again.received.length;
    const appOnly = post(`/sessions/${id}/app-tool-call`, { server: "probe", tool: "app-only" });
    const question = await again.next((m): m is Extract<ServerMessage, { type: "approval_request" }> => m.type === "approval_request", from);
    again.send({ type: "approval", callId: question.callId, approved: true });
    // toMatchObject: on 2026-07-28 the result also carries the server's identity in _meta.
    expect(await (await appOnly).json()).toMatchObject({ result: { content: [{ type: "text", text: "app only" }] } });
    again.close();
  });
});

describe("what a resource and a tool declare", () => {
  it("opens exactly the declared domains, and drops entries that would break out of a directive", () => {
    const csp = resourceCsp({
      ui: {
        csp: {
          connectDomains: ["https://api.example.com", "https://x.example.com; script-src *", "'unsafe-eval'", 42],
          resourceDomains: ["https://*.cdn.example.com", "https://fonts.example.com:8443/css/", "javascript:alert(1)", "https://a.example.com 'unsafe-eval'"],
          frameDomains: "https://not-a-list.example.com",
        },
      },
    });
    expect(csp).toEqual({
      connectDomains: ["https://api.example.com"],
      resourceDomains: ["https://*.cdn.example.com", "https://fonts.example.com:8443/css/"],
      frameDomains: [],
    });
    const header = appCsp(csp);
    expect(header).toContain("script-src 'unsafe-inline' https://*.cdn.example.com https://fonts.example.com:8443/css/;");
    expect(header).toContain("connect-src https://api.example.com;");
    expect(header).toContain("frame-src 'none';");
    expect(header).not.toContain("unsafe-eval");
    expect(header).not.toContain("'self' ");
    expect(resourceCsp(undefined)).toEqual({});
    expect(resourceCsp({ ui: "nonsense" })).toEqual({});
  });

  it("reads a tool's ui:// resource from the current key and the deprecated flat one", () => {
    expect(toolUiResourceUri({ ui: { resourceUri: "ui://a/app.html" } })).toBe("ui://a/app.html");
    expect(toolUiResourceUri({ "ui/resourceUri": "ui://b/app.html" })).toBe("ui://b/app.html");
    expect(toolUiResourceUri({ ui: { resourceUri: "ui://a/app.html" }, "ui/resourceUri": "ui://b/app.html" })).toBe("ui://a/app.html");
    expect(toolUiResourceUri({ ui: { resourceUri: "https://evil.example.com/app.html" } })).toBeUndefined();
    expect(toolUiResourceUri({ ui: { resourceUri: 7 } })).toBeUndefined();
    expect(toolUiResourceUri(undefined)).toBeUndefined();
    expect(toolUiVisibility({ ui: { visibility: ["app"] } })).toEqual(["app"]);
    expect(toolUiVisibility({ ui: { visibility: ["everyone"] } })).toBeUndefined();
    expect(toolUiVisibility({})).toBeUndefined();
  });
});
