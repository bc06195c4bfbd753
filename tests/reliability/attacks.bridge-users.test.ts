// The bridge knows whose request it carries (issue 21.3), with the real bridge and
// server-everything: a sampling request from a shared child never crosses users, a
// session cannot be used under another user's name, and `"isolation": "user"` gives
// each user a child of their own. Before: the request went to the oldest call's session
// (alice's), whoever's call caused it, or to every capable session of every user.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childrenOf, connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { ProbeLog } from "../fixtures/probe-log";
import { everythingBin, probeServerBin } from "../fixtures/servers";
import { attackCase } from "./record";

let bridge: RunningBridge;
const clients: Client[] = [];
const sharedProbe = new ProbeLog();
const isolatedProbe = new ProbeLog();
beforeAll(async () => {
  bridge = await startBridge({
    shared: { command: process.execPath, args: [everythingBin, "stdio"] },
    isolated: { command: process.execPath, args: [everythingBin, "stdio"], isolation: "user" },
    probe: { command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: sharedProbe.path } },
    probeIsolated: { command: process.execPath, args: [probeServerBin], env: { PROBE_LOG: isolatedProbe.path }, isolation: "user" },
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

/** A 2025 session of `user` and the log lines (notifications/message data) it was sent. */
async function loggingClient(server: string, user: string): Promise<{ client: Client; lines: unknown[] }> {
  const { client } = await connectClient(bridge, server, {}, user);
  clients.push(client);
  const lines: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void lines.push(n.params.data));
  return { client, lines };
}

/** Runs `bob`'s slow call, waits until the child has it, runs `during`, then checks bob's call outlived it. */
async function whileBobWaits(bob: Client, probe: ProbeLog, during: () => Promise<unknown>): Promise<void> {
  const before = probe.events().filter((e) => e.event === "call" && e.tool === "slow").length;
  let bobDone = false;
  const slow = bob.callTool({ name: "slow", arguments: { ms: 4000 } }).then((result) => {
    bobDone = true;
    return result;
  });
  await probe.waitFor(() => probe.events().filter((e) => e.event === "call" && e.tool === "slow").length > before);
  await during();
  // Bob's call was still on the wire when the line came, so his session could have had it.
  expect(bobDone).toBe(false);
  expect(text(await slow)).toContain("done");
}

describe("a shared child's log lines (2025 sessions)", () => {
  it(
    "reach only the sessions of the one user whose calls are running, and nobody while several users' calls run",
    attackCase(
      "Server log lines cross users (2025 sessions)",
      "alice's call logs on a shared child while alice's second session and bob's session each have a call running there",
      async () => {
        const alice = await loggingClient("probe", "token:alice");
        const alice2 = await loggingClient("probe", "token:alice");
        const bob = await loggingClient("probe", "token:bob");
        // Alice's calls only: both of her sessions get the line, bob's none.
        await whileBobWaits(alice2.client, sharedProbe, () => alice.client.callTool({ name: "log", arguments: {} }));
        expect(alice.lines).toEqual(["probe says hi"]);
        expect(alice2.lines).toEqual(["probe says hi"]);
        expect(bob.lines).toEqual([]);
        // Bob's call running too: stdio does not say whose the line is, so nobody gets it.
        await whileBobWaits(bob.client, sharedProbe, () => alice.client.callTool({ name: "log", arguments: {} }));
        expect(bob.lines).toEqual([]);
        expect(alice.lines).toHaveLength(1);
        return { tried: 2, figure: "alice alone: her 2 sessions got the line, bob none; with bob's call running: nobody got it" };
      },
    ),
  );

  it('with "isolation": "user" reach the child\'s user even while another user\'s call runs', async () => {
    const alice = await loggingClient("probeIsolated", "token:alice");
    const bob = await loggingClient("probeIsolated", "token:bob");
    await whileBobWaits(bob.client, isolatedProbe, () => alice.client.callTool({ name: "log", arguments: {} }));
    expect(alice.lines).toEqual(["probe says hi"]);
    expect(bob.lines).toEqual([]);
  });
});
