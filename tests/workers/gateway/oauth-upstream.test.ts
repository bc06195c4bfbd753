// /mcp reaching a server the person signed in to with OAuth (the bearer-protected fixture of
// tests/fixtures/oauth-server.ts): after erin's sign-in in a chat, an outside client of hers
// lists that server's tools and calls one; the Worker sends its own stored token upstream
// (the client's never leaves the Worker: the app object is reached with props, not a bearer).
// Before the sign-in the server offers the client nothing; once signed in, the app's next
// list (its servers read again) has the server's tools.
import { describe, expect, it } from "vitest";
import { connectApp, mcpClient } from "../../fixtures/gateway-direct";
import { addServer, newSession, signIn, stats } from "../http/oauth-helpers";

describe.each(["2026", "2025"] as const)("an OAuth'd server through /mcp at %s", (era) => {
  it("is offered once the person signed in, and its tool runs on the Worker's stored token", async () => {
    const name = await addServer("header", { alwaysAllow: ["whoami"] }, "erin");
    const session = await newSession("erin");
    const props = await connectApp("erin");

    const before = await mcpClient(props, era);
    try {
      const names = (await before.client.listTools()).tools.map((t) => t.name);
      expect(names.some((n) => n.startsWith(`${name}__`))).toBe(false);
    } finally {
      await before.client.close();
    }

    await signIn(session, name, "erin");
    const calls = (await stats("header")).toolCalls.length;
    const { client } = await mcpClient(props, era);
    try {
      // The sign-in's last writes finish after the callback answered: the list follows them.
      await expect.poll(async () => (await client.listTools()).tools.map((t) => t.name)).toContain(`${name}__whoami`);
      const result = await client.callTool({ name: `${name}__whoami`, arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: "text", text: "realm header, scope mcp:read" }]);
    } finally {
      await client.close();
    }
    expect((await stats("header")).toolCalls.slice(calls)).toEqual(["whoami"]);
  });
});
