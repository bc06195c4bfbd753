// What a client under test must do for the conformance scenarios, whichever client it
// is: McpHost (host-driver.ts) or the SDK's own v2 Client (sdk-driver.ts). scenarios.ts
// drives this interface only, so both clients run the very same steps.
import type { CallToolResult, ElicitResult, Tool } from "@modelcontextprotocol/client";

export interface DriverOptions {
  url: string;
  /** Answers a server's form elicitation (undefined: no elicitation capability). */
  elicit?: (params: unknown) => Promise<ElicitResult>;
  /** Signs in when the server asks (OAuth authorization code flow against the scenario's server). */
  oauth?: {
    /** A pre-registered client (auth/pre-registration). */
    preRegistered?: { clientId: string; clientSecret?: string };
    /** Client ID Metadata Document URL offered when the server supports CIMD. */
    clientMetadataUrl?: string;
    /**
     * Machine-to-machine: the `client_credentials` grant with a secret or a private-key JWT
     * (auth/client-credentials-*, an extension). A client without that grant signs in as a
     * person would and fails those scenarios.
     */
    clientCredentials?: { clientId: string; clientSecret?: string; privateKeyPem?: string; algorithm?: string };
    /** Enterprise-managed authorization (SEP-990, an extension): the IdP's ID token traded for an ID-JAG, then a token. */
    crossApp?: { clientId: string; clientSecret: string; idpClientId: string; idpIdToken: string; idpTokenEndpoint: string };
  };
}

export interface Driver {
  connect(): Promise<void>;
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  listResources(): Promise<{ uri: string }[]>;
  readResource(uri: string): Promise<unknown>;
  listPrompts(): Promise<{ name: string }[]>;
  getPrompt(name: string): Promise<unknown>;
  close(): Promise<void>;
}

export const REDIRECT_URI = "http://localhost:3000/callback";
export const CIMD_URL = "https://conformance-test.local/client-metadata.json";

/**
 * Plays the person at the authorization server: the scenario's server answers the
 * authorization URL with a redirect to REDIRECT_URI carrying `code` (and `iss`), which
 * is returned as the callback's query. No browser: the suite's server needs no login.
 */
export async function authorize(authorizationUrl: URL): Promise<URLSearchParams> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  const location = response.headers.get("location");
  if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return new URL(location, authorizationUrl).searchParams;
}
