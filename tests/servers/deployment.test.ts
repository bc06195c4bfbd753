// mcp.json's servers as one user gets them (src/servers/audience.ts, deployment.ts).
import { describe, expect, it } from "vitest";
import { deploymentServersFor, type DeploymentServers } from "../../src/servers/deployment";
import type { RemoteServerConfig } from "../../src/shared/mcp-config/config";

const BRIDGE = "http://127.0.0.1:8808";
const server = (name: string, url: string, users?: string[]): RemoteServerConfig => ({
  name,
  transport: "http",
  url,
  headers: {},
  disabled: false,
  timeoutMs: 60_000,
  alwaysAllow: [],
  dependencies: [],
  excludeTools: [],
  ...(users ? { users } : {}),
});
const base: DeploymentServers = {
  config: {
    servers: [
      server("fs", `${BRIDGE}/servers/fs/mcp`, ["alice@example.com"]),
      server("git", `${BRIDGE}/servers/git/mcp`),
      server("docs", "https://docs.example.com/mcp"),
      server("billing", "https://billing.example.com/mcp", ["carol@example.com"]),
    ],
  },
  unreachable: [],
  problems: [],
};

describe("deploymentServersFor", () => {
  it("gives a bridged server only to the users it names, marked with the user, and a remote one to everyone", () => {
    const alice = deploymentServersFor(base, { mode: "access", user: { id: "access:123", name: "Alice@Example.com" } }, BRIDGE);
    expect(alice.config.servers.map((s) => s.name)).toEqual(["fs", "docs"]);
    expect(alice.config.servers[0]).toMatchObject({ headers: { "X-Edgehost-User": "access:123" } });
    expect(alice.config.servers[1]?.transport === "http" && alice.config.servers[1].headers).toEqual({});
    expect(alice.unreachable).toEqual([{ server: "git", reason: expect.stringContaining('names no "users"') }]);
    const bob = deploymentServersFor(base, { mode: "token", user: { id: "token:bob", name: "bob" } }, BRIDGE);
    expect(bob.config.servers.map((s) => s.name)).toEqual(["docs"]);
    expect(bob.unreachable.map((u) => u.server)).toEqual(["git"]);
  });

  it("changes nothing in AUTH_MODE=none", () => {
    const local = deploymentServersFor(base, { mode: "none", user: { id: "local", name: "local" } }, BRIDGE);
    expect(local.config.servers.map((s) => s.name)).toEqual(["fs", "git", "docs", "billing"]);
    expect(local.unreachable).toEqual([]);
  });
});
