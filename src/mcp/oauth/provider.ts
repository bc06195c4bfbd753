// The SDK's OAuthClientProvider for one user's one server, over a storage port
// (the user's UserAccount Durable Object in the Worker). The SDK's `auth()` does
// the protocol — discovery, registration, PKCE, token exchange, refresh, step-up;
// this decides where its results live and what each caller may do:
// - "session": a chat session's connection. Sends the stored token, refreshes it
//   (before expiry and on 401), and when only the user can help (no token, refresh
//   refused, wider scope wanted) records that, and the transport fails with
//   UnauthorizedError: the server shows "Sign in".
// - "sign-in": the route the user's "Sign in" calls. Registers the client if needed
//   and captures the authorization URL, with a state made by the route and the PKCE
//   verifier kept with that state.
// - "callback": the code exchange, with the verifier the state pointed to.
import {
  auth,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from "@modelcontextprotocol/client";
import type { OAuthClientConfig } from "../../shared/mcp-config/config";
import { assertS256, SignInRequiredError } from "./errors";

type StoredClient = OAuthClientInformationMixed & { issuer?: string };
type StoredTokens = OAuthTokens & { issuer?: string };

/** What is kept per user and server. Never leaves the Worker. */
export interface OAuthRecord {
  /** The server URL the record belongs to: a record for another URL is not used. */
  serverUrl: string;
  /** The redirect URI the client was registered with. */
  redirectUri?: string;
  client?: StoredClient;
  tokens?: StoredTokens;
  /** Epoch ms when the access token expires (from `expires_in`). */
  expiresAt?: number;
  discovery?: OAuthDiscoveryState;
  /** The scope the last authorization asked for (a step-up widens it). */
  scope?: string;
  /** The last challenge the server sent a session (challenge-fetch.ts): where a sign-in starts when `initialize` is let through. */
  challenge?: StoredChallenge;
  /** When the user's recent sign-ins finished (epoch ms): a server that keeps challenging is stopped after a few. */
  signIns?: number[];
}

export interface StoredChallenge {
  resourceMetadataUrl?: string;
  scope?: string;
  status: number;
  at: number;
}

/** Where a provider keeps its record; `undefined` fields of a patch are removed. */
export interface OAuthStorage {
  load(): Promise<OAuthRecord | undefined>;
  save(patch: Partial<OAuthRecord>): Promise<void>;
}

export type OAuthMode =
  | { kind: "session" }
  | { kind: "sign-in"; state: string; redirectUri: string; clientMetadataUrl?: string; saveVerifier: (verifier: string) => Promise<void> }
  | { kind: "callback"; verifier: string };

export interface OAuthProviderOptions {
  server: string;
  serverUrl: string;
  storage: OAuthStorage;
  mode: OAuthMode;
  /** Pre-registered client from mcp.json or the user's entry. */
  preRegistered?: OAuthClientConfig;
  now?: () => number;
  /** The fetch a token refresh goes through (a guarded one for the user's own servers: src/servers/guarded-fetch.ts). */
  fetch?: typeof fetch;
}

/** A token this close to its expiry is refreshed before it is sent. */
export const REFRESH_MARGIN_MS = 60_000;
// Never sent anywhere: in session mode the authorization URL is thrown away.
const NO_REDIRECT = "urn:edgehost:sign-in-needed";

export class EdgeOAuthProvider implements OAuthClientProvider {
  /** The URL `auth()` produced in sign-in mode. */
  authorizationUrl?: URL;
  readonly clientMetadataUrl?: string;
  private record?: OAuthRecord;
  private loaded = false;
  private refreshing?: Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: OAuthProviderOptions) {
    this.now = options.now ?? Date.now;
    if (options.mode.kind === "sign-in") this.clientMetadataUrl = options.mode.clientMetadataUrl;
  }

  /** Reads the stored record again (each `auth()` run starts with `discoveryState()`, which calls this). */
  private async load(force = false): Promise<OAuthRecord> {
    if (!this.loaded || force) {
      const stored = await this.options.storage.load();
      this.record = stored && stored.serverUrl === this.options.serverUrl ? stored : undefined;
      this.loaded = true;
    }
    return this.record ?? { serverUrl: this.options.serverUrl };
  }

  private async save(patch: Partial<OAuthRecord>): Promise<void> {
    const current = await this.load();
    this.record = { ...current, ...patch, serverUrl: this.options.serverUrl };
    await this.options.storage.save({ ...patch, serverUrl: this.options.serverUrl });
  }

  get redirectUrl(): string {
    const mode = this.options.mode;
    if (mode.kind === "sign-in") return mode.redirectUri;
    return this.record?.redirectUri ?? NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.options.preRegistered?.scopes;
    return {
      client_name: "edgehost",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(scopes?.length ? { scope: scopes.join(" ") } : {}),
    };
  }

  state(): string {
    const mode = this.options.mode;
    return mode.kind === "sign-in" ? mode.state : crypto.randomUUID();
  }

  async clientInformation(): Promise<StoredClient | undefined> {
    const record = await this.load();
    const mode = this.options.mode;
    const pre = this.options.preRegistered;
    let client = record.client;
    // A client registered for another redirect URI (the Worker moved) is registered again.
    if (client && mode.kind === "sign-in" && record.redirectUri !== mode.redirectUri && !pre) client = undefined;
    if (pre && client?.client_id !== pre.clientId) client = undefined;
    // Stamped with the issuer just discovered (SEP-2352), so it is bound to that authorization server from its first use.
    const issuer = record.discovery?.authorizationServerMetadata?.issuer ?? record.discovery?.authorizationServerUrl;
    if (!client && pre) client = { client_id: pre.clientId, ...(pre.clientSecret ? { client_secret: pre.clientSecret } : {}), ...(issuer ? { issuer } : {}) };
    // Only the user's "Sign in" registers a client: a session cannot know where the user would come back to.
    if (!client && mode.kind === "session") throw new SignInRequiredError(this.options.server);
    return client;
  }

  async saveClientInformation(client: StoredClient): Promise<void> {
    await this.save({ client, redirectUri: this.redirectUrl === NO_REDIRECT ? this.record?.redirectUri : this.redirectUrl });
  }

  /** The per-request read (no ctx) refreshes a token about to expire; `auth()`'s own reads (ctx) get what is stored. */
  async tokens(ctx?: { issuer: string }): Promise<StoredTokens | undefined> {
    const record = await this.load();
    if (ctx || this.options.mode.kind !== "session") return record.tokens;
    if (record.tokens?.refresh_token && record.expiresAt !== undefined && record.expiresAt - this.now() < REFRESH_MARGIN_MS) {
      this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
      await this.refreshing;
    }
    return this.record?.tokens;
  }

  private async refresh(): Promise<void> {
    try {
      await auth(this, { serverUrl: this.options.serverUrl, ...(this.options.fetch ? { fetchFn: this.options.fetch } : {}) });
    } catch {
      // The request goes out with what is stored; a 401 then runs the SDK's own recovery.
    }
  }

  async saveTokens(tokens: StoredTokens): Promise<void> {
    const expiresAt = tokens.expires_in === undefined ? undefined : this.now() + tokens.expires_in * 1000;
    // An AS may leave out a refresh token on refresh (RFC 6749 §6): the old one stays valid.
    const refresh = tokens.refresh_token ?? this.record?.tokens?.refresh_token;
    await this.save({ tokens: { ...tokens, ...(refresh ? { refresh_token: refresh } : {}) }, expiresAt });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    // The scope asked for (with a step-up's wider scope) is what the user's next sign-in asks for.
    const scope = authorizationUrl.searchParams.get("scope") ?? undefined;
    const mode = this.options.mode;
    if (mode.kind === "sign-in") {
      // The code exchange must name the same redirect URI the authorization request did.
      await this.save({ redirectUri: mode.redirectUri, ...(scope ? { scope } : {}) });
      this.authorizationUrl = authorizationUrl;
    } else if (scope && scope !== this.record?.scope) await this.save({ scope });
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    const mode = this.options.mode;
    if (mode.kind === "sign-in") await mode.saveVerifier(verifier);
  }

  codeVerifier(): string {
    const mode = this.options.mode;
    if (mode.kind !== "callback") throw new SignInRequiredError(this.options.server, "no sign-in is in progress");
    return mode.verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") return;
    const tokens = { tokens: undefined, expiresAt: undefined };
    if (scope === "tokens") {
      // Another session may have refreshed (and rotated) the tokens since this one read them: its
      // refused refresh token is then stale, not the stored one, and the stored tokens are kept.
      const stored = await this.options.storage.load();
      if (stored?.serverUrl === this.options.serverUrl && stored.tokens && stored.tokens.refresh_token !== this.record?.tokens?.refresh_token) {
        this.record = stored;
        return;
      }
      await this.save(tokens);
    } else if (scope === "client") await this.save({ client: undefined, redirectUri: undefined });
    else if (scope === "discovery") await this.save({ discovery: undefined });
    else await this.save({ ...tokens, client: undefined, redirectUri: undefined, discovery: undefined });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    const { discovery } = await this.load(true);
    // A sign-in discovers afresh: the server may name another authorization server by now (SEP-2352). The
    // SDK then finds the stored client stamped with the old issuer, and registers again at the new one.
    if (this.options.mode.kind === "sign-in") return undefined;
    if (discovery) assertS256(this.options.server, discovery.authorizationServerMetadata?.code_challenge_methods_supported);
    return discovery;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    // Refused before any registration or redirect: the spec requires S256, and an AS that does not say so is not used.
    assertS256(this.options.server, state.authorizationServerMetadata?.code_challenge_methods_supported);
    await this.save({ discovery: state });
  }
}
