// Sign-in that starts from the challenge the server actually sent (issue 20.8): servers
// that let `initialize` through and challenge only at `tools/list` (the MCP conformance
// suite's scope-step-up), or with 403 insufficient_scope on one tool's call, and one that
// keeps challenging after every sign-in (scope-retry-limit). Through the real Worker in
// workerd against the OAuth fixture (tests/fixtures/oauth-server.ts).
import { describe, expect, it } from "vitest";
import { addServer, callTool, newSession, post, serverRow, signIn, stats } from "./oauth-helpers";

describe("sign-in from the challenge a server sent", () => {
  it("signs in to a server that challenges only at tools/list, with the scope it named", async () => {
    const name = await addServer("late");
    const session = await newSession();
    expect(await serverRow(session, name)).toMatchObject({ state: "auth_required" });
    const before = (await stats("late")).authorizeRequests.length;
    const url = await signIn(session, name);
    expect((await stats("late")).authorizeRequests.length).toBe(before + 1);
    expect(url.searchParams.get("scope")).toBe("mcp:read");
    expect(await serverRow(session, name)).toMatchObject({ state: "ready", toolCount: 2 });
    expect(await callTool(session, `${name}.whoami`)).toMatchObject({ status: 200, body: { result: { content: [{ text: "realm late, scope mcp:read" }] } } });
  });

  it("steps up to the union of scopes when one tool answers 403 insufficient_scope", async () => {
    const name = await addServer("lateuser");
    const session = await newSession();
    await signIn(session, name);
    expect((await callTool(session, `${name}.whoami`)).status).toBe(200);
    expect((await callTool(session, `${name}.admin_echo`)).status).not.toBe(200);
    expect((await stats("lateuser")).insufficientScope).toBeGreaterThan(0);
    const url = await signIn(session, name);
    expect(url.searchParams.get("scope")?.split(" ").sort()).toEqual(["mcp:admin", "mcp:read"]);
    expect(await callTool(session, `${name}.admin_echo`)).toMatchObject({ status: 200, body: { result: { content: [{ text: "admin ok" }] } } });
  });

  it("stops after three sign-ins in a row that the server keeps refusing, with a clear error", async () => {
    const name = await addServer("stubborn");
    const session = await newSession();
    for (let i = 0; i < 3; i++) {
      await signIn(session, name);
      // Still refused at tools/list (403 insufficient_scope): not ready.
      expect((await serverRow(session, name))?.state).toMatch(/^(auth_required|unavailable)$/);
    }
    const refused = await post("/oauth/sign-in", { server: name, session });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: "oauth_retry_limit", message: expect.stringContaining("3 sign-ins") } } });
    expect((await stats("stubborn")).authorizeRequests.length).toBe(3);
  });
});
