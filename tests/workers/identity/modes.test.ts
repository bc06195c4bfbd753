// Which AUTH_MODE settings serve and which fail closed, through the real Worker
// entry in workerd with the environment a deployment would have.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { readSettings } from "../../../src/config/settings";
import { loadSessionMcpConfig } from "../../../src/servers/mcp-json";

async function call(url: string, vars: Record<string, string | undefined>): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(url), { ...env, AUTH_MODE: undefined, ACCESS_TOKENS: undefined, ...vars } as never, ctx);
  await waitOnExecutionContext(ctx);
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
}

describe("AUTH_MODE", () => {
  it("serves loopback with no mode, and fails closed everywhere else", async () => {
    expect(await call("http://localhost:8787/api/me", {})).toEqual({ status: 200, body: { user: { id: "local", name: "local" }, authMode: "none" } });
    expect((await call("http://127.0.0.1:8787/api/me", { AUTH_MODE: "none" })).status).toBe(200);
    const unset = await call("https://chat.example.com/api/me", {});
    expect(unset.status).toBe(503);
    expect(unset.body.error?.message).toContain('set AUTH_MODE to "access" (with ACCESS_TEAM_DOMAIN and ACCESS_AUD');
    const explicitNone = await call("https://chat.example.com/api/me", { AUTH_MODE: "none" });
    expect(explicitNone.status).toBe(503);
    expect(explicitNone.body.error?.message).toContain('AUTH_MODE "none" works only on localhost');
  });

  it.each([
    [{ AUTH_MODE: "acess" }, 'AUTH_MODE must be "access", "token" or "none"'],
    [{ AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: "myteam" }, 'AUTH_MODE is "access" but ACCESS_AUD is not set'],
    [{ AUTH_MODE: "access" }, "ACCESS_TEAM_DOMAIN and ACCESS_AUD are not set"],
    [{ AUTH_MODE: "access", ACCESS_TEAM_DOMAIN: "http://myteam.example.com", ACCESS_AUD: "x" }, "ACCESS_TEAM_DOMAIN must be"],
    [{ AUTH_MODE: "token" }, "ACCESS_TOKENS (name:token,...) is not set"],
    [{ AUTH_MODE: "token", ACCESS_TOKENS: "alice:short" }, 'the token of "alice" is shorter than 16 characters'],
    [{ AUTH_MODE: "token", ACCESS_TOKENS: "no-colon-here-0123456789" }, "must be name:token"],
    [{ AUTH_MODE: "token", ACCESS_TOKENS: "a:0123456789abcdef01,a:fedcba9876543210fe" }, '"a" appears twice'],
    [{ AUTH_MODE: "token", ACCESS_TOKENS: "a:0123456789abcdef01", ALLOWED_ORIGINS: "https://x.example/path" }, "is not an origin"],
  ])("refuses to serve with %j, saying what is wrong", async (vars, expected) => {
    for (const url of ["https://chat.example.com/api/me", "http://localhost:8787/api/sessions"]) {
      const answer = await call(url, vars);
      expect(answer.status).toBe(503);
      expect(answer.body.error?.code).toBe("auth_not_configured");
      expect(answer.body.error?.message).toContain(expected);
      // A token is never echoed back.
      expect(answer.body.error?.message).not.toMatch(/0123456789abcdef01|fedcba/);
    }
  });
});

describe("BRIDGE_URL", () => {
  it("must be https unless the bridge is on this machine", () => {
    const mcp = JSON.stringify({ servers: { fs: { command: "x" } } });
    for (const url of ["http://127.0.0.1:8808", "http://localhost:8808", "https://bridge.example.com"]) {
      const vars = { BRIDGE_URL: url, MCP_CONFIG: mcp };
      const { config, unreachable } = loadSessionMcpConfig(vars, readSettings(vars).settings);
      expect({ url, unreachable, routed: config.servers[0] && "url" in config.servers[0] ? config.servers[0].url : undefined }).toEqual({
        url,
        unreachable: [],
        routed: `${url}/servers/fs/mcp`,
      });
    }
    const remote = { BRIDGE_URL: "http://192.0.2.7:8808", MCP_CONFIG: mcp };
    const { settings, problems } = readSettings(remote);
    expect(problems).toEqual(["BRIDGE_URL is invalid (must be https:// unless it is on this machine (localhost / 127.0.0.1)); using the default"]);
    expect(loadSessionMcpConfig(remote, settings).unreachable).toEqual([
      { server: "fs", reason: "it is a stdio server and BRIDGE_URL was refused (it must be https:// unless the bridge is on this machine)" },
    ]);
  });

  it("sends an Access service token to a bridge behind a tunnel, besides its own bearer token", () => {
    const vars = {
      BRIDGE_URL: "https://bridge.example.com",
      BRIDGE_TOKEN: "t0k",
      BRIDGE_ACCESS_CLIENT_ID: "id.access",
      BRIDGE_ACCESS_CLIENT_SECRET: "s3cret",
      MCP_CONFIG: JSON.stringify({ servers: { fs: { command: "x" } } }),
    };
    const server = loadSessionMcpConfig(vars, readSettings(vars).settings).config.servers[0];
    expect(server && "headers" in server ? server.headers : undefined).toEqual({
      Authorization: "Bearer t0k",
      "CF-Access-Client-Id": "id.access",
      "CF-Access-Client-Secret": "s3cret",
    });
  });
});
