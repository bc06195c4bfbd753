// The deployment's machine is not everyone's (issue 21.2), on the real stack in
// AUTH_MODE=token: mcp.json's filesystem server names alice only, another stdio server
// names nobody. Before: every user got every stdio server, with the bridge token attached.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw } from "../fixtures/raw-http";
import { openSession } from "../fixtures/session-client-node";
import { everythingBin } from "../fixtures/servers";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const ALICE = "alice-token-audience-0123456789";
const BOB = "bob-token-audience-0123456789ab";
const auth = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    model: false,
    vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}` },
    filesystemUsers: ["alice"],
    mcpServers: { unnamed: { command: process.execPath, args: [everythingBin, "stdio"], users: null } },
  });
});
afterAll(async () => {
  await stack?.stop();
});

describe("mcp.json's audience", () => {
  it(
    "keeps a stdio server from users it does not name, and from everyone when it names nobody",
    attackCase(
      "Everyone gets the deployer's machine (issue 21.2)",
      "bob lists servers (sessions and My servers), calls filesystem.list_directory and list_allowed_directories directly and sees his session's servers; both users try the server that names nobody",
      async () => {
        const listed = await raw(stack.url, "/api/servers", { headers: auth(BOB) });
        expect(listed.text).not.toContain("filesystem");
        expect(listed.text).not.toContain(stack.fsRoot);
        // My servers' read-only list of mcp.json servers follows the same rule.
        const myServers = await raw(stack.url, "/api/my-servers", { headers: auth(BOB) });
        expect(myServers.status).toBe(200);
        expect(myServers.text).not.toContain("filesystem");
        expect(myServers.text).toContain("unnamed");
        const calls = await Promise.all(
          ["filesystem.list_directory", "filesystem.list_allowed_directories", "unnamed.echo"].map((tool) =>
            raw(stack.url, `/api/tools/${tool}`, {
              method: "POST",
              headers: auth(BOB),
              body: JSON.stringify({ arguments: { path: stack.fsRoot, message: "x" }, approved: true }),
            }),
          ),
        );
        expect(calls.map((c) => c.status)).toEqual([404, 404, 404]);
        expect(calls.map((c) => c.text).join("")).not.toContain(stack.fsRoot);
        const socket = await openSession(stack.url, crypto.randomUUID(), { headers: { authorization: `Bearer ${BOB}` } });
        const servers = await socket.next((m) => m.type === "servers" && m.servers.some((s) => s.name === "unnamed"));
        if (servers.type !== "servers") throw new Error("no servers frame");
        expect(servers.servers.map((s) => s.name)).not.toContain("filesystem");
        expect(servers.servers.find((s) => s.name === "unnamed")).toMatchObject({
          state: "unavailable",
          lastError: expect.stringContaining('names no "users"'),
        });
        socket.close();
        // Alice, whom the entry names, is served.
        const mine = await raw(stack.url, "/api/tools/filesystem.list_directory", {
          method: "POST",
          headers: auth(ALICE),
          body: JSON.stringify({ arguments: { path: stack.fsRoot } }),
        });
        expect(mine.status).toBe(200);
        const unnamed = await raw(stack.url, "/api/tools/unnamed.echo", {
          method: "POST",
          headers: auth(ALICE),
          body: JSON.stringify({ arguments: { message: "x" }, approved: true }),
        });
        expect(unnamed.status).toBe(404);
        return {
          tried: 6,
          figure:
            'bob: filesystem not listed (nor in My servers), calls 404/404, the unnamed server 404 and shown unavailable: "names no users"; alice served by filesystem, refused the unnamed one',
        };
      },
    ),
  );
});
