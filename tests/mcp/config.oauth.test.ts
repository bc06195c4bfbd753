// mcp.json's `oauth` key for the client-credentials grant (src/shared/mcp-config/oauth-config.ts):
// what it reads, and the line a user sees for each mistake, the secret written into the
// file itself among them.
import { describe, expect, it } from "vitest";
import { parseMcpConfig } from "../../src/shared/mcp-config/config";
import { ConfigError } from "../../src/shared/errors";

const entry = (oauth: Record<string, unknown>) => JSON.stringify({ servers: { reports: { url: "https://reports.example.com/mcp", oauth } } });

/** The `path: message` parts of the issues parsing `oauth` raises (positions left out). */
function problems(oauth: Record<string, unknown>, env: Record<string, string> = {}): string[] {
  try {
    parseMcpConfig(entry(oauth), { env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split("\n").map((line) => line.replace(/^mcp\.json:\d+:\d+ /, ""));
  }
  throw new Error("expected a ConfigError");
}

describe("mcp.json oauth: the client-credentials grant", () => {
  it("reads client_secret_basic and private_key_jwt entries, the secrets from the environment", () => {
    const env = { REPORTS_ID: "reports-client", REPORTS_SECRET: "s3cret", REPORTS_KEY: "-----BEGIN PRIVATE KEY-----\nMIG...\n-----END PRIVATE KEY-----\n" };
    const basic = parseMcpConfig(
      entry({ grant: "client_credentials", clientId: "${env:REPORTS_ID}", clientSecret: "${env:REPORTS_SECRET}", scopes: ["reports:read"] }),
      {
        env,
      },
    );
    expect(basic.servers[0]).toMatchObject({
      oauth: { grant: "client_credentials", clientId: "reports-client", clientSecret: "s3cret", scopes: ["reports:read"] },
    });
    const jwt = parseMcpConfig(
      entry({ grant: "client_credentials", clientId: "reports-client", privateKey: "${REPORTS_KEY}", algorithm: "ES256", issuer: "https://auth.example.com" }),
      { env },
    );
    expect(jwt.servers[0]).toMatchObject({
      oauth: { grant: "client_credentials", clientId: "reports-client", privateKey: env.REPORTS_KEY, algorithm: "ES256", issuer: "https://auth.example.com" },
    });
    // "authorization_code" is today's person sign-in: read as if no grant were given.
    const person = parseMcpConfig(entry({ grant: "authorization_code", clientId: "edgehost" }), { env });
    expect(person.servers[0]).toMatchObject({ oauth: { clientId: "edgehost" } });
    expect((person.servers[0] as { oauth?: object }).oauth).not.toHaveProperty("grant");
  });

  it("refuses a secret or key written into mcp.json itself", () => {
    expect(problems({ grant: "client_credentials", clientId: "c", clientSecret: "s3cret" })).toEqual([
      "servers.reports.oauth.clientSecret: expected a reference to a Worker secret (${env:NAME}), not the secret itself",
    ]);
    // Part of the value a reference is not enough: the whole value names the secret.
    expect(problems({ grant: "client_credentials", clientId: "c", privateKey: "-----BEGIN ${KEY}", algorithm: "ES256" }, { KEY: "k" })).toEqual([
      "servers.reports.oauth.privateKey: expected a reference to a Worker secret (${env:NAME}), not the secret itself",
    ]);
  });

  it("names each key that is missing, doubled or out of place", () => {
    expect(problems({ grant: "client_credentials", clientId: "c" })).toEqual([
      'servers.reports.oauth: "grant": "client_credentials" needs "clientSecret" (client_secret_basic) or "privateKey" (private_key_jwt)',
    ]);
    expect(problems({ grant: "client_credentials", clientId: "c", clientSecret: "${S}", privateKey: "${K}", algorithm: "ES256" }, { S: "s", K: "k" })).toEqual([
      'servers.reports.oauth.privateKey: use either "clientSecret" or "privateKey", not both',
    ]);
    expect(problems({ grant: "client_credentials", clientId: "c", privateKey: "${K}" }, { K: "k" })).toEqual([
      'servers.reports.oauth.algorithm: required with "privateKey" (e.g. "ES256" or "RS256")',
    ]);
    expect(problems({ clientId: "c", privateKey: "${K}", issuer: "https://a.example" }, { K: "k" })).toEqual([
      'servers.reports.oauth.privateKey: only with "grant": "client_credentials"',
      'servers.reports.oauth.issuer: only with "grant": "client_credentials"',
    ]);
    expect(problems({ grant: "client_credentials", clientId: "c", clientSecret: "${S}", algorithm: "ES256" }, { S: "s" })).toEqual([
      'servers.reports.oauth.algorithm: only with "privateKey"',
    ]);
  });

  it("checks the grant, the algorithm, the issuer and unset secrets", () => {
    expect(problems({ grant: "password", clientId: "c" })).toEqual(['servers.reports.oauth.grant: expected "authorization_code" or "client_credentials"']);
    expect(problems({ grant: "client_credentials", clientId: "c", privateKey: "${K}", algorithm: "HS256" }, { K: "k" })).toEqual([
      expect.stringMatching(/^servers\.reports\.oauth\.algorithm: expected one of RS256, .*ES256/),
    ]);
    expect(problems({ grant: "client_credentials", clientId: "c", clientSecret: "${S}", issuer: "auth.example.com" }, { S: "s" })).toEqual([
      "servers.reports.oauth.issuer: expected the authorization server's issuer, an http(s) URL",
    ]);
    expect(problems({ grant: "client_credentials", clientId: "c", clientSecret: "${env:MISSING}" })).toEqual([
      "servers.reports.oauth.clientSecret: environment variable MISSING is not set",
    ]);
  });
});
