// A deployment server signed in to with the deployment's own client credentials (mcp.json
// `"grant": "client_credentials"`), in workerd as a session builds it: mcp.json read by
// loadSessionMcpConfig with the secret in the environment, the provider chosen by
// sessionOAuthProvider, the host's real transports, against the local authorization
// server + bearer-protected MCP server fixture (tests/fixtures/oauth-server.ts, realm
// "machine", started by global setup). No person signs in.
import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/config/env";
import { readSettings } from "../../src/config/settings";
import { McpHost } from "../../src/mcp/host";
import { beginSignIn } from "../../src/mcp/oauth/sign-in";
import { workerTransports } from "../../src/mcp/transports";
import { loadSessionMcpConfig } from "../../src/servers/mcp-json";
import type { RemoteServerConfig } from "../../src/shared/mcp-config/config";
import { sessionOAuthProvider } from "../../src/users/oauth-client-storage";
import { PRE_REGISTERED, type RealmStats } from "../fixtures/oauth-realms";

const base = inject("oauthBase");
const url = `${base}/machine/mcp`;
const stats = async () => (await (await fetch(`${base}/_stats/machine`)).json()) as RealmStats;

/** The deployment's mcp.json with one machine server, read as a session reads it. */
function deployment(oauth: Record<string, unknown>, secrets: Record<string, string>): RemoteServerConfig {
  const vars = { MCP_CONFIG: JSON.stringify({ servers: { reports: { url, oauth: { grant: "client_credentials", ...oauth } } } }), ...secrets };
  const { config, problems } = loadSessionMcpConfig(vars, readSettings(vars).settings);
  expect(problems).toEqual([]);
  const server = config.servers[0];
  if (server?.transport !== "http") throw new Error("expected the http server");
  return server;
}

/** A session's host for `user`, the provider picked as src/session/session-parts.ts picks it. */
function sessionHost(user: string): McpHost {
  return new McpHost({
    transports: workerTransports({ auth: (server) => sessionOAuthProvider(env as unknown as Env, user, server) }),
    connectTimeoutMs: 15_000,
    retry: { initialMs: 0, maxMs: 0, tries: 1 },
  });
}

async function pemOf(key: CryptoKey): Promise<string> {
  const der = new Uint8Array((await crypto.subtle.exportKey("pkcs8", key)) as ArrayBuffer);
  const b64 = btoa(String.fromCharCode(...der));
  return `-----BEGIN PRIVATE KEY-----\n${b64.match(/.{1,64}/g)?.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

describe("client-credentials servers (the deployment is the OAuth client)", () => {
  it("client_secret_basic: connects without a sign-in, shares the token across users, and gets a new one when the server refuses it", async () => {
    const server = deployment({ clientId: PRE_REGISTERED.clientId, clientSecret: "${env:REPORTS_SECRET}" }, { REPORTS_SECRET: PRE_REGISTERED.clientSecret });
    const before = (await stats()).clientCredentials.length;
    const alice = sessionHost("token:alice");
    const bob = sessionHost("token:bob");
    try {
      expect(await alice.connect({ servers: [server] })).toEqual({ ready: ["reports"], failed: [] });
      expect(await alice.callTool("reports.whoami", {})).toMatchObject({ content: [{ type: "text", text: "realm machine, scope mcp:read" }] });
      const grants = (await stats()).clientCredentials.slice(before);
      expect(grants).toEqual([{ client: PRE_REGISTERED.clientId, method: "client_secret_basic", scope: "mcp:read", resource: url }]);
      // Another user's session: the deployment's token, no second grant.
      expect(await bob.connect({ servers: [server] })).toEqual({ ready: ["reports"], failed: [] });
      expect((await stats()).clientCredentials.length).toBe(before + 1);
      // The AS expires every token: the next call's 401 gets a new one with the same credentials, and goes on.
      expect((await fetch(`${base}/_admin/machine/expire`, { method: "POST" })).status).toBe(200);
      expect(await bob.callTool("reports.whoami", {})).toMatchObject({ content: [{ text: "realm machine, scope mcp:read" }] });
      expect((await stats()).clientCredentials.slice(before).map((g) => g.method)).toEqual(["client_secret_basic", "client_secret_basic"]);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  it("private_key_jwt: signs an ES256 assertion with the key from the environment", async () => {
    const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
    const registered = await fetch(`${base}/_admin/machine/client-key`, { method: "POST", body: JSON.stringify({ clientId: "reports-jwt", jwk }) });
    expect(registered.status).toBe(200);
    const server = deployment(
      { clientId: "reports-jwt", privateKey: "${env:REPORTS_KEY}", algorithm: "ES256", scopes: ["mcp:read"] },
      { REPORTS_KEY: await pemOf(pair.privateKey) },
    );
    const before = (await stats()).clientCredentials.length;
    const host = sessionHost("token:alice");
    try {
      expect(await host.connect({ servers: [server] })).toEqual({ ready: ["reports"], failed: [] });
      expect(await host.callTool("reports.whoami", {})).toMatchObject({ content: [{ text: "realm machine, scope mcp:read" }] });
      expect((await stats()).clientCredentials.slice(before)).toEqual([{ client: "reports-jwt", method: "private_key_jwt", scope: "mcp:read", resource: url }]);
    } finally {
      await host.close();
    }
  });

  it("a refused secret leaves the server unavailable (no Sign in), and the message carries no secret", async () => {
    const secret = "wrong-secret-value-1234";
    const server = deployment({ clientId: PRE_REGISTERED.clientId, clientSecret: "${REPORTS_SECRET}" }, { REPORTS_SECRET: secret });
    const host = sessionHost("token:alice");
    try {
      const report = await host.connect({ servers: [server] });
      expect(report.ready).toEqual([]);
      const row = host.servers()[0];
      expect(row?.state).toBe("unavailable");
      expect(row?.lastError).toMatch(/invalid_client|client authentication failed/i);
      expect(JSON.stringify(host.servers())).not.toContain(secret);
    } finally {
      await host.close();
    }
  });

  it("with an issuer, the credentials go to no other authorization server", async () => {
    const server = deployment(
      { clientId: PRE_REGISTERED.clientId, clientSecret: "${REPORTS_SECRET}", issuer: "https://auth.example.com" },
      { REPORTS_SECRET: PRE_REGISTERED.clientSecret },
    );
    const before = (await stats()).clientCredentials.length;
    const host = sessionHost("token:alice");
    try {
      expect((await host.connect({ servers: [server] })).ready).toEqual([]);
      expect(host.servers()[0]?.state).not.toBe("ready");
      expect((await stats()).clientCredentials.length).toBe(before);
    } finally {
      await host.close();
    }
  });

  it("refuses a person's sign-in to it with a typed error", async () => {
    const server = deployment({ clientId: PRE_REGISTERED.clientId, clientSecret: "${REPORTS_SECRET}" }, { REPORTS_SECRET: PRE_REGISTERED.clientSecret });
    const storage = { load: async () => undefined, save: async () => undefined };
    const started = beginSignIn({ server, storage, state: "s", redirectUri: "https://edgehost.test/oauth/callback", saveVerifier: async () => undefined });
    await expect(started).rejects.toMatchObject({ code: "oauth_unsupported", message: expect.stringContaining("client credentials") });
  });
});
