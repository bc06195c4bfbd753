// The two legs of a user's sign-in to a server, run by the Worker's /oauth routes:
// `beginSignIn` reads the server's challenge (its 401 `WWW-Authenticate`: where its
// protected-resource metadata is, which scope it wants) and lets the SDK's `auth()`
// discover, register and build the authorization URL; `finishSignIn` exchanges the
// code with the verifier that belongs to the state. Runtime-neutral.
import {
  auth,
  Client,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type AuthProvider,
} from "@modelcontextprotocol/client";
import type { RemoteServerConfig } from "../../shared/mcp-config/config";
import { OAuthUnsupportedError, SignInRequiredError } from "./errors";
import { EdgeOAuthProvider, type OAuthStorage, type StoredChallenge } from "./provider";

export interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

/**
 * Opens the server without a token and reads its 401 challenge through the SDK's
 * transport. Undefined when the server let us in: it needs no sign-in.
 */
async function readChallenge(server: RemoteServerConfig, fetchImpl: typeof fetch | undefined, timeoutMs = 10_000): Promise<Challenge | undefined> {
  let challenge: Challenge | undefined;
  const probe: AuthProvider = {
    token: async () => undefined,
    onUnauthorized: async (ctx) => {
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(ctx.response);
      challenge = { resourceMetadataUrl, scope };
      throw new SignInRequiredError(server.name);
    },
  };
  // Negotiates like every connection (server-client.ts): a 2026-07-28-only server answers an
  // un-negotiated `initialize` with -32020 (no MCP-Protocol-Version header), never the 401 wanted here.
  const client = new Client({ name: "edgehost", version: "0.1.0" }, { versionNegotiation: { mode: "auto" } });
  try {
    const url = new URL(server.url);
    const options = { requestInit: { headers: server.headers }, authProvider: probe, fetch: fetchImpl };
    const transport = server.transport === "sse" ? new SSEClientTransport(url, options) : new StreamableHTTPClientTransport(url, options);
    await client.connect(transport, { timeout: timeoutMs });
    return undefined;
  } catch (error) {
    if (challenge) return challenge;
    throw error;
  } finally {
    await client.close().catch(() => undefined);
  }
}

function storedChallenge(stored: StoredChallenge | undefined): Challenge | undefined {
  if (!stored) return undefined;
  let resourceMetadataUrl: URL | undefined;
  try {
    resourceMetadataUrl = stored.resourceMetadataUrl ? new URL(stored.resourceMetadataUrl) : undefined;
  } catch {
    resourceMetadataUrl = undefined;
  }
  return { resourceMetadataUrl, scope: stored.scope };
}

export interface BeginSignIn {
  server: RemoteServerConfig;
  storage: OAuthStorage;
  state: string;
  redirectUri: string;
  clientMetadataUrl?: string;
  /** The scope a step-up recorded for this server (the caller has the record already). */
  remembered?: string;
  /** The scope the user's tokens already carry: a step-up asks for it and the new scope together. */
  granted?: string;
  /** The challenge a session last received (challenge-fetch.ts), for a server that lets `initialize` through. */
  stored?: StoredChallenge;
  saveVerifier: (verifier: string) => Promise<void>;
  /** The fetch every request of the sign-in goes through (discovery, registration, token): a guarded one. */
  fetch?: typeof fetch;
}

/** The authorization URL to send the user to, or undefined when the server needs no sign-in. */
export async function beginSignIn(options: BeginSignIn): Promise<URL | undefined> {
  const { server, storage } = options;
  // Nobody signs in to it: the deployment's client credentials get its token (machine-client.ts).
  if (server.oauth?.grant === "client_credentials")
    throw new OAuthUnsupportedError(server.name, "it uses the deployment's client credentials, not a person's sign-in");
  // The server's answer to a fresh connection, else what it said to a session on a later request.
  const challenge = (await readChallenge(server, options.fetch)) ?? storedChallenge(options.stored);
  if (!challenge) return undefined;
  const provider = new EdgeOAuthProvider({
    server: server.name,
    serverUrl: server.url,
    storage,
    preRegistered: server.oauth,
    mode: {
      kind: "sign-in",
      state: options.state,
      redirectUri: options.redirectUri,
      clientMetadataUrl: options.clientMetadataUrl,
      saveVerifier: options.saveVerifier,
    },
  });
  // The challenge's scope, widened by a step-up the session recorded; else the SDK takes the metadata's.
  const scope = computeScopeUnion(options.granted, options.remembered, challenge.scope);
  await auth(provider, {
    serverUrl: server.url,
    resourceMetadataUrl: challenge.resourceMetadataUrl,
    scope,
    forceReauthorization: true,
    ...(options.fetch ? { fetchFn: options.fetch } : {}),
  });
  if (!provider.authorizationUrl) throw new OAuthUnsupportedError(server.name, "the authorization server gave no authorization URL");
  // The page opens this URL from our origin: only a web address may be opened (the SDK refuses
  // javascript:, data: and vbscript:, not every other scheme).
  if (!/^https?:$/.test(provider.authorizationUrl.protocol)) {
    throw new OAuthUnsupportedError(server.name, `its authorization endpoint is not an http(s) URL (${provider.authorizationUrl.protocol})`);
  }
  return provider.authorizationUrl;
}

export interface FinishSignIn {
  server: RemoteServerConfig;
  storage: OAuthStorage;
  verifier: string;
  code: string;
  iss?: string;
  fetch?: typeof fetch;
}

/** Exchanges the authorization code; the tokens are saved through `storage`. */
export async function finishSignIn(options: FinishSignIn): Promise<void> {
  const { server } = options;
  const provider = new EdgeOAuthProvider({
    server: server.name,
    serverUrl: server.url,
    storage: options.storage,
    preRegistered: server.oauth,
    mode: { kind: "callback", verifier: options.verifier },
  });
  await auth(provider, { serverUrl: server.url, authorizationCode: options.code, iss: options.iss, ...(options.fetch ? { fetchFn: options.fetch } : {}) });
}
