// The Worker in real workerd, the real bridge behind it (issue 21.2, 21.3): every request
// to the bridge names the session's user, and the read-only list of mcp.json servers in
// My servers holds only those meant for the caller. mcp.json's "isolated" server is
// server-everything with `"isolation": "user"` for erin only (session-servers.ts).
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { workerFetch } from "../worker-fetch";
import type { TestUser } from "../test-users";

const json = { "content-type": "application/json" };

async function bridgeHealth(): Promise<{ servers: Record<string, { userChildren?: number; sessions: number }> }> {
  const response = await fetch(`${inject("bridgeUrl")}/health`, { headers: { authorization: `Bearer ${inject("bridgeToken")}` } });
  return response.json();
}

async function deploymentList(user: TestUser): Promise<string[]> {
  const response = await workerFetch("/api/my-servers", {}, user);
  expect(response.status).toBe(200);
  return ((await response.json()) as { deployment: string[] }).deployment;
}

describe("the bridge knows whose request it carries", () => {
  it("starts erin's own child of an isolated server for her calls: the Worker named her on them", async () => {
    // Other files may have run erin's chats on this shared bridge already (test files run in
    // any order): then her one child exists, and it is still the only one after her calls.
    expect([0, 1]).toContain((await bridgeHealth()).servers.isolated?.userChildren);
    for (const message of ["one", "two"]) {
      const call = await workerFetch("/api/tools/isolated.echo", { method: "POST", headers: json, body: JSON.stringify({ arguments: { message } }) }, "erin");
      expect(call.status).toBe(200);
      expect(JSON.stringify(await call.json())).toContain(`Echo: ${message}`);
    }
    // One child for erin, however many requests: a Worker that named no one would have used the startup child (0).
    const health = await bridgeHealth();
    expect(health.servers.isolated?.userChildren).toBe(1);
    expect(health.servers.isolated?.sessions).toBeGreaterThanOrEqual(1);
  });

  it("refuses the isolated server's tools to a user mcp.json does not name", async () => {
    const call = await workerFetch(
      "/api/tools/isolated.echo",
      { method: "POST", headers: json, body: JSON.stringify({ arguments: { message: "x" }, approved: true }) },
      "alice",
    );
    expect(call.status).toBe(404);
    expect((await bridgeHealth()).servers.isolated?.userChildren).toBe(1);
  });
});

describe("My servers' list of the deployment's servers", () => {
  it("names only the servers mcp.json gives the caller", async () => {
    expect(await deploymentList("erin")).toEqual(["isolated"]);
    const alices = await deploymentList("alice");
    expect(alices).toEqual(expect.arrayContaining(["filesystem", "everything"]));
    expect(alices).not.toContain("isolated");
  });
});
