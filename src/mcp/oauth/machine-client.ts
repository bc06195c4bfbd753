// The deployment as its own OAuth client (mcp.json `"grant": "client_credentials"`,
// the client-credentials extension, SEP-1046): no person signs in, the SDK's own
// providers get the token with the client's secret (client_secret_basic) or a signed
// assertion (private_key_jwt), on the first 401 and again whenever the server refuses
// the token. The token stands for the deployment, so every user's connection in an
// isolate shares one provider and its token instead of asking for one per connection.
import { ClientCredentialsProvider, type OAuthClientProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/client";
import type { OAuthClientConfig, RemoteServerConfig } from "../../shared/mcp-config/config";

// Keyed by the parsed `oauth` object: mcp.json is parsed once per isolate (src/servers/mcp-json.ts),
// and a changed MCP_CONFIG is a new object, so changed credentials never meet an old token.
const providers = new WeakMap<OAuthClientConfig, OAuthClientProvider>();

/** The provider for a server configured with the client-credentials grant, else undefined (a person signs in). */
export function machineOAuthProvider(server: RemoteServerConfig): OAuthClientProvider | undefined {
  const oauth = server.oauth;
  if (oauth?.grant !== "client_credentials") return undefined;
  let provider = providers.get(oauth);
  if (!provider) {
    provider = create(oauth);
    providers.set(oauth, provider);
  }
  return provider;
}

function create(oauth: OAuthClientConfig): OAuthClientProvider {
  const common = {
    clientId: oauth.clientId,
    clientName: "edgehost",
    ...(oauth.scopes?.length ? { scope: oauth.scopes.join(" ") } : {}),
    // With an issuer the SDK stamps the client with it and refuses to send the credential to any
    // other authorization server the MCP server might name (SEP-2352).
    ...(oauth.issuer ? { expectedIssuer: oauth.issuer } : {}),
  };
  if (oauth.privateKey !== undefined) return new PrivateKeyJwtProvider({ ...common, privateKey: oauth.privateKey, algorithm: oauth.algorithm ?? "ES256" });
  return new ClientCredentialsProvider({ ...common, clientSecret: oauth.clientSecret ?? "" });
}
