// The SDK's own v2 Client as the client under test, the yardstick for McpHost: auto
// version negotiation (2026-07-28 where the server speaks it, else the 2025 handshake),
// the SDK's OAuth (an in-memory provider, the authorization code fetched by authorize()).
import {
  Client,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthTokens,
  type StoredOAuthClientInformation,
} from "@modelcontextprotocol/client";
import { authorize, REDIRECT_URI, type Driver, type DriverOptions } from "./driver";

class MemoryProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private client?: StoredOAuthClientInformation;
  private stored?: OAuthTokens;
  private verifier = "";

  constructor(
    readonly clientMetadataUrl: string | undefined,
    preRegistered?: { clientId: string; clientSecret?: string },
  ) {
    if (preRegistered) this.client = { client_id: preRegistered.clientId, client_secret: preRegistered.clientSecret };
  }
  get redirectUrl(): string {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "conformance-sdk-v2", redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] };
  }
  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.client;
  }
  saveClientInformation(client: StoredOAuthClientInformation): void {
    this.client = client;
  }
  tokens(): OAuthTokens | undefined {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** The SDK's own providers for the client_credentials grant (no person, no redirect). */
function machineProvider(credentials: NonNullable<NonNullable<DriverOptions["oauth"]>["clientCredentials"]>): OAuthClientProvider {
  const { clientId, clientSecret, privateKeyPem, algorithm } = credentials;
  if (privateKeyPem) return new PrivateKeyJwtProvider({ clientId, privateKey: privateKeyPem, algorithm: algorithm ?? "ES256" });
  return new ClientCredentialsProvider({ clientId, clientSecret: clientSecret ?? "" });
}

/** The SDK's Cross-App Access provider: the ID-JAG comes from the IdP's token endpoint, then the AS trades it. */
function crossAppProvider(ctx: NonNullable<NonNullable<DriverOptions["oauth"]>["crossApp"]>): OAuthClientProvider {
  return new CrossAppAccessProvider({
    clientId: ctx.clientId,
    clientSecret: ctx.clientSecret,
    assertion: async (auth) =>
      (
        await requestJwtAuthorizationGrant({
          tokenEndpoint: ctx.idpTokenEndpoint,
          audience: auth.authorizationServerUrl,
          resource: auth.resourceUrl,
          idToken: ctx.idpIdToken,
          clientId: ctx.idpClientId,
          fetchFn: auth.fetchFn,
        })
      ).jwtAuthGrant,
  });
}

export function sdkDriver(options: DriverOptions): Driver {
  const { clientCredentials: credentials, crossApp } = options.oauth ?? {};
  const provider = options.oauth && !credentials && !crossApp ? new MemoryProvider(options.oauth.clientMetadataUrl, options.oauth.preRegistered) : undefined;
  const authProvider = credentials ? machineProvider(credentials) : crossApp ? crossAppProvider(crossApp) : provider;
  const client = new Client(
    { name: "conformance-sdk-v2", version: "1.0.0" },
    { capabilities: options.elicit ? { elicitation: { form: { applyDefaults: true } } } : {}, versionNegotiation: { mode: "auto" } },
  );
  if (options.elicit) {
    const elicit = options.elicit;
    client.setRequestHandler("elicitation/create", (request) => elicit(request.params));
  }
  let transport = new StreamableHTTPClientTransport(new URL(options.url), { authProvider });

  /** The person's part of an authorization: follow the URL the SDK built, hand the code back. */
  const signIn = async (): Promise<void> => {
    if (!provider?.authorizationUrl) throw new Error("the SDK asked for authorization without a URL");
    const url = provider.authorizationUrl;
    provider.authorizationUrl = undefined;
    await transport.finishAuth(await authorize(url));
  };
  const withSignIn = async <T>(op: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await op();
      } catch (error) {
        if (!(error instanceof UnauthorizedError) || !provider || attempt >= 2) throw error;
        await signIn();
      }
    }
  };

  return {
    connect: async () => {
      try {
        await client.connect(transport);
      } catch (error) {
        if (!(error instanceof UnauthorizedError) || !provider) throw error;
        await signIn();
        transport = new StreamableHTTPClientTransport(new URL(options.url), { authProvider: provider });
        await client.connect(transport);
      }
    },
    listTools: () => withSignIn(async () => (await client.listTools()).tools),
    callTool: (name, args) => withSignIn(async () => (await client.callTool({ name, arguments: args })) as Awaited<ReturnType<Driver["callTool"]>>),
    listResources: async () => (await client.listResources()).resources,
    readResource: (uri) => client.readResource({ uri }),
    listPrompts: async () => (await client.listPrompts()).prompts,
    getPrompt: (name) => client.getPrompt({ name, arguments: {} }),
    close: () => client.close(),
  };
}
