// The person's argument rules for all their chats apply at /mcp too (issue 40, docs/rules.md):
// the gateway's call gate reads the account's rules before deciding, so a call whose argument
// matches runs without asking, any other call is asked through the client as before, and a
// rule revoked (DELETE /api/rules/{id}) asks from the next call. The tool is the v2 fixture's
// `touch` (writes note://board, read back through the gateway), its `text` judged as a path.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { GrantProps } from "../../../src/gateway/props";
import { userAccount } from "../../../src/users/account";
import { connectApp, directFetch, MCP_URL } from "../../fixtures/gateway-direct";
import { aliceV2Server, api } from "./own-v2-server";

const server = aliceV2Server("ar");
const touch = `${server}__touch`;

/** A client that can elicit; every question it gets is written down and denied. */
async function denyingClient(props: GrantProps) {
  const asked: string[] = [];
  const client = new Client({ name: "rules-test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } });
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { decision: "deny" } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: directFetch(props.appId, props) }));
  return { client, asked };
}

async function board(client: Client): Promise<string> {
  const read = await client.readResource({ uri: "note://board" });
  const first = read.contents[0];
  return first && "text" in first ? first.text : "";
}

describe("argument rules at /mcp", () => {
  it("a rule for all chats lets a matching call run unasked; others ask; revoked, it asks again", async () => {
    // Made in a chat from an approval in real use (tests/workers/session/session.rules.test.ts); kept straight in alice's account here.
    const id = crypto.randomUUID();
    const rule = { id, server, tool: "touch", arg: "text", kind: "path" as const, value: "notes/", scope: "all" as const, createdAt: Date.now() };
    expect((await userAccount(env as unknown as Env, "token:alice").addRule(rule)).ok).toBe(true);

    const { client, asked } = await denyingClient(await connectApp("alice", "Rules Test"));
    try {
      const mark = `notes/${crypto.randomUUID()}`;
      const ran = await client.callTool({ name: touch, arguments: { text: mark } });
      expect(ran.isError).toBeFalsy();
      expect(await board(client)).toBe(mark);
      expect(asked).toHaveLength(0);

      // Outside the folder, and a `..` climbing out of it: asked (and denied), not run.
      for (const other of ["other/x", "notes/../x"]) {
        await expect(client.callTool({ name: touch, arguments: { text: other } })).rejects.toThrow(/denied/i);
        expect(await board(client)).toBe(mark);
      }
      expect(asked).toHaveLength(2);

      // Bob cannot revoke alice's rule; alice can, and the next matching call asks.
      expect((await api(`/api/rules/${id}`, { method: "DELETE" }, "bob")).status).toBe(404);
      expect((await api(`/api/rules/${id}`, { method: "DELETE" })).status).toBe(204);
      const after = `notes/${crypto.randomUUID()}`;
      await expect(client.callTool({ name: touch, arguments: { text: after } })).rejects.toThrow(/denied/i);
      expect(asked).toHaveLength(3);
      expect(await board(client)).toBe(mark);
    } finally {
      await client.close();
    }
  });
});
