// SEP-2352 (conformance auth/authorization-server-migration, issue 34): when a server's
// protected-resource metadata names another authorization server, the next sign-in
// registers the client again at the new one and never shows it the old one's client id.
// A real loopback HTTP server plays the MCP server (401 to everything, with its metadata
// URL) and two authorization servers (metadata with their issuer, dynamic registration);
// beginSignIn runs the SDK's auth() against it with an in-memory record store.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OAuthRecord, OAuthStorage } from "../../src/mcp/oauth/provider";
import { beginSignIn } from "../../src/mcp/oauth/sign-in";
import { httpServer } from "../fixtures/servers";

let base = "";
let current: "as1" | "as2" = "as1";
const registrations: string[] = [];
let http: Server;

beforeAll(async () => {
  http = createServer((req, res) => {
    const url = req.url ?? "";
    const json = (body: unknown, status = 200) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    req.resume();
    if (url === "/mcp") {
      res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
      return;
    }
    if (url === "/.well-known/oauth-protected-resource/mcp") return json({ resource: `${base}/mcp`, authorization_servers: [`${base}/${current}`] });
    const metadata = /^\/\.well-known\/oauth-authorization-server\/(as[12])$/.exec(url);
    if (metadata) {
      const issuer = `${base}/${metadata[1]}`;
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"],
        code_challenge_methods_supported: ["S256"],
      });
    }
    const register = /^\/(as[12])\/register$/.exec(url);
    if (register && req.method === "POST") {
      registrations.push(register[1] ?? "");
      return json({ client_id: `${register[1]}-client`, redirect_uris: ["https://edgehost.test/oauth/callback"] }, 201);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => http.close(resolve));
});

function memoryStorage(): OAuthStorage {
  let record: OAuthRecord | undefined;
  return {
    load: async () => record,
    save: async (patch) => {
      record = { ...(record ?? { serverUrl: patch.serverUrl ?? "" }), ...patch } as OAuthRecord;
      for (const [key, value] of Object.entries(patch)) if (value === undefined) delete (record as unknown as Record<string, unknown>)[key];
    },
  };
}

describe("a server that moves to another authorization server", () => {
  it("has the next sign-in register again at the new one, without the old client id", async () => {
    const server = httpServer("moving", `${base}/mcp`);
    const storage = memoryStorage();
    const signIn = () =>
      beginSignIn({ server, storage, state: crypto.randomUUID(), redirectUri: "https://edgehost.test/oauth/callback", saveVerifier: async () => undefined });

    const first = await signIn();
    expect(first?.href.startsWith(`${base}/as1/authorize`)).toBe(true);
    expect(first?.searchParams.get("client_id")).toBe("as1-client");
    // Signing in again at the same server reuses the client it registered.
    expect((await signIn())?.searchParams.get("client_id")).toBe("as1-client");
    expect(registrations).toEqual(["as1"]);

    current = "as2";
    const moved = await signIn();
    expect(moved?.href.startsWith(`${base}/as2/authorize`)).toBe(true);
    expect(moved?.searchParams.get("client_id")).toBe("as2-client");
    expect(registrations).toEqual(["as1", "as2"]);
  });
});
