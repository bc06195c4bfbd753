// The `roots` field of an mcp.json entry: file:// URIs of absolute paths, `${VAR}`
// expanded, each mistake reported at its place; stdio servers keep them for the
// bridge (which answers roots/list itself), so the Worker never offers them to it.
import { describe, expect, it } from "vitest";
import { routeStdioThroughBridge } from "../../src/mcp/bridge-routing";
import { parseMcpConfig } from "../../src/shared/mcp-config/config";
import { ConfigError } from "../../src/shared/errors";

const parse = (servers: Record<string, unknown>, env: Record<string, string> = {}) => parseMcpConfig(JSON.stringify({ servers }, null, 2), { env });

function issues(servers: Record<string, unknown>): string[] {
  try {
    parse(servers);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error("expected a ConfigError");
}

describe("roots in mcp.json", () => {
  it("reads roots of stdio and remote servers, expanding variables; absent stays absent", () => {
    const config = parse(
      {
        fs: { command: "node", roots: [{ uri: "file://${HOME}/project", name: "project" }, { uri: "file:///srv/data" }] },
        remote: { url: "https://mcp.example.com/mcp", roots: [] },
        plain: { url: "https://other.example.com/mcp" },
      },
      { HOME: "/home/me" },
    );
    expect(config.servers.map((s) => [s.name, s.roots])).toEqual([
      ["fs", [{ uri: "file:///home/me/project", name: "project" }, { uri: "file:///srv/data" }]],
      ["remote", []],
      ["plain", undefined],
    ]);
    expect("roots" in (config.servers[2] ?? {})).toBe(false);
  });

  it("reports each root that is not a file:// URI of an absolute path, and a wrong shape", () => {
    expect(
      issues({
        a: { command: "node", roots: [{ uri: "https://example.com" }, { uri: "file://server/share" }, { uri: "./relative" }, { uri: "file:///ok" }] },
        b: { url: "https://x.example/mcp", roots: [{ name: "no uri" }] },
        c: { url: "https://x.example/mcp", roots: "file:///x" },
      }),
    ).toEqual([
      "servers.a.roots[0].uri: expected a file:// URI of an absolute path (file:///home/me/project)",
      "servers.a.roots[1].uri: expected a file:// URI of an absolute path (file:///home/me/project)",
      "servers.a.roots[2].uri: expected a file:// URI of an absolute path (file:///home/me/project)",
      "servers.b.roots[0].uri: expected string",
      "servers.c.roots: expected array of roots",
    ]);
  });

  it("leaves a stdio server's roots to the bridge when routing it there", () => {
    const routed = routeStdioThroughBridge(parse({ fs: { command: "node", roots: [{ uri: "file:///srv" }] } }), { url: "http://127.0.0.1:8808" });
    expect(routed.servers[0]).not.toHaveProperty("roots");
  });
});
