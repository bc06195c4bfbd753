// The bridge knows whose request it carries (issue 21.3), with the real bridge and
// server-everything: a sampling request from a shared child never crosses users, a
// session cannot be used under another user's name, and `"isolation": "user"` gives
// each user a child of their own. Before: the request went to the oldest call's session
// (alice's), whoever's call caused it, or to every capable session of every user.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childrenOf, connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { everythingBin } from "../fixtures/servers";
import { attackCase } from "./record";

let bridge: RunningBridge;
const clients: Client[] = [];
beforeAll(async () => {
  bridge = await startBridge({
    shared: { command: process.execPath, args: [everythingBin, "stdio"] },
    isolated: { command: process.execPath, args: [everythingBin, "stdio"], isolation: "user" },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  expect(await bridge.stop()).toBe(0);
});

/** A session of `user` that answers sampling with its own name, and records what it was asked. */
async function userClient(server: string, user: string, asked: string[]) {
  const { client, transport } = await connectClient(bridge, server, { sampling: {} }, user);
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked.push(`${user}: ${JSON.stringify(request.params.messages)}`);
    return { role: "assistant", model: "m", content: { type: "text", text: `answered by ${user}` } };
  });
  clients.push(client);
  return { client, transport };
}

const text = (result: unknown) => JSON.stringify((result as { content: unknown }).content);

describe("a shared child's requests", () => {
  it(
    "reach only the user whose call is running, and are refused while several users' calls run",
    attackCase(
      "Server requests cross users (issue 21.3)",
      "bob's call asks for sampling while alice has an older call running on the same child; then bob's alone",
      async () => {
        const asked: string[] = [];
        const alice = await userClient("shared", "token:alice", asked);
        const bob = await userClient("shared", "token:bob", asked);
        const aliceLong = alice.client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 3, steps: 3 } });
        const crossed = await bob.client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "bob's private text" } });
        expect(text(crossed)).not.toContain("answered by");
        expect(asked).toEqual([]);
        await aliceLong;
        const own = await bob.client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "bob again" } });
        expect(text(own)).toContain("answered by token:bob");
        expect(asked).toHaveLength(1);
        expect(asked[0]).toMatch(/^token:bob: /);
        return { tried: 2, figure: "with alice's call running: refused, alice asked nothing; bob alone: only bob asked" };
      },
    ),
  );

  it(
    "cannot be taken over by replaying a session id under another user",
    attackCase("Bridge session replayed as another user", "bob's Mcp-Session-Id sent with X-Edgehost-User alice, and with no user", async () => {
      const { transport } = await userClient("shared", "token:bob", []);
      const sessionId = transport.sessionId ?? "";
      const statuses: number[] = [];
      for (const user of ["token:alice", undefined]) {
        const response = await fetch(`${bridge.url}/servers/shared/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${bridge.token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": sessionId,
            ...(user ? { "x-edgehost-user": user } : {}),
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([404, 404]);
      return { tried: 2, figure: "2/2 answered 404 session not found" };
    }),
  );
});

describe('"isolation": "user"', () => {
  it("gives each user a child of their own, so both users' server requests are answered at once", async () => {
    const asked: string[] = [];
    const before = childrenOf(bridge.pid).length;
    const alice = await userClient("isolated", "token:alice", asked);
    const bob = await userClient("isolated", "token:bob", asked);
    const [a, b] = await Promise.all([
      alice.client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "a" } }),
      bob.client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "b" } }),
    ]);
    expect(text(a)).toContain("answered by token:alice");
    expect(text(b)).toContain("answered by token:bob");
    expect(asked.map((line) => line.split(":").slice(0, 2).join(":")).sort()).toEqual(["token:alice", "token:bob"]);
    expect(childrenOf(bridge.pid).length).toBe(before + 2);
    expect((await bridge.health()).servers.isolated?.userChildren).toBe(2);
    // /metrics counts the server's calls under its name, whichever user's child ran them.
    const metrics = (await (await fetch(`${bridge.url}/metrics`, { headers: { authorization: `Bearer ${bridge.token}` } })).json()) as {
      servers: Record<string, { tools: Record<string, { calls: number }> }>;
    };
    expect(metrics.servers.isolated?.tools["trigger-sampling-request"]?.calls).toBe(2);
  });
});
