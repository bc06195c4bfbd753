// A shared child's requests never reach a user who did not cause them (issue 21.3), in
// the two cases the first routing left open, with the real bridge and server-everything:
// a call from a session that cannot take the request (a local client without sampling)
// must not hand it to another user's idle session, and a request made while no call is
// running (server-everything asks for roots 350 ms after a restart) must not go to the
// one user who happens to be connected. Before: both went to alice, and bob read her
// roots through the shared child.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, startBridge, type RunningBridge } from "../fixtures/bridge";
import { everythingBin } from "../fixtures/servers";
import { attackCase } from "./record";

let bridge: RunningBridge;
const clients: Client[] = [];
beforeAll(async () => {
  const everything = { command: process.execPath, args: [everythingBin, "stdio"] };
  // No restart delay: the roots case restarts a child and must not wait out a backoff.
  bridge = await startBridge({ sampled: everything, rooted: everything }, ["--restart-backoff", "0", "--sse-stream"]);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  expect(await bridge.stop()).toBe(0);
});

async function client(server: string, user: string | undefined, capabilities: Record<string, object>) {
  const connected = await connectClient(bridge, server, capabilities, user);
  clients.push(connected.client);
  return connected.client;
}

const text = (result: unknown) => JSON.stringify((result as { content: unknown }).content);

describe("a shared child's request with no capable caller", () => {
  it(
    "is refused, not given to another user's idle session",
    attackCase(
      "Server request handed to an idle user (issue 21.3)",
      "a local client without sampling calls trigger-sampling-request with private text while alice's session (sampling, idle) is connected to the same child",
      async () => {
        const asked: string[] = [];
        const alice = await client("sampled", "token:alice", { sampling: {} });
        alice.setRequestHandler(CreateMessageRequestSchema, async (request) => {
          asked.push(JSON.stringify(request.params.messages));
          return { role: "assistant", model: "m", content: { type: "text", text: "answered by alice" } };
        });
        const local = await client("sampled", undefined, {});
        const result = await local.callTool({ name: "trigger-sampling-request", arguments: { prompt: "the local user's private text" } });
        expect(asked).toEqual([]);
        expect(text(result)).not.toContain("answered by alice");
        expect(text(result)).toContain("no connected session supports sampling");
        return {
          tried: 1,
          figure: `the child got an error (${text(result).includes("no connected session supports sampling") ? "no local session supports sampling" : "other"}); alice asked nothing`,
        };
      },
    ),
  );
});

describe("a shared child's request with no call running", () => {
  it(
    "is refused, so one user's roots never become the roots another user's calls see",
    attackCase(
      "Server request with no call running (issue 21.3)",
      "the shared child is killed and restarted; 350 ms after its start it asks roots/list with no call running, alice (roots) the only capable session; then bob calls get-roots-list",
      async () => {
        const secret = "file:///home/alice/secret-project";
        let answered: () => void = () => undefined;
        const aliceAsked = new Promise<string>((resolve) => (answered = () => resolve("alice asked")));
        const alice = await client("rooted", "token:alice", { roots: { listChanged: true } });
        alice.setRequestHandler(ListRootsRequestSchema, async () => {
          answered();
          return { roots: [{ uri: secret, name: "alice's project" }] };
        });
        const bob = await client("rooted", "token:bob", {});
        const pid = (await bridge.health()).servers.rooted?.pid ?? 0;
        const gone = bridge.waitForLog(/"server unavailable".*"rooted"|"rooted".*"server unavailable"/);
        process.kill(pid, "SIGKILL");
        await gone;
        // Bob's request restarts the child, now offered roots (alice declared them); it asks for them on its own.
        await bob.listTools();
        const outcome = await Promise.race([aliceAsked, bridge.waitForLog(/server request refused.*roots\/list/).then(() => "refused")]);
        const seen = await bob.callTool({ name: "get-roots-list", arguments: {} }).catch((error: unknown) => ({ content: String(error) }));
        expect(outcome).toBe("refused");
        expect(text(seen)).not.toContain(secret);
        return { tried: 2, figure: "roots/list with no call running: refused; bob's get-roots-list saw none of alice's roots" };
      },
    ),
  );
});
