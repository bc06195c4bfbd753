// The `oauth` key of a remote server in mcp.json: how edgehost gets a token for it.
// - Absent `grant` (or "authorization_code"): each person signs in (src/mcp/oauth/sign-in.ts);
//   `clientId`/`clientSecret` name a pre-registered client, else it registers itself.
// - `grant: "client_credentials"` (the OAuth client-credentials extension, SEP-1046): the
//   deployment itself is the client, no person signs in. It authenticates with
//   `clientSecret` (client_secret_basic) or `privateKey` + `algorithm` (private_key_jwt).
//   Those two must name a Worker secret (`${env:NAME}`): a secret written into mcp.json
//   would be committed and bundled with the Worker.
import { z } from "zod";
import type { JSONPath } from "./config-source";
import { isHttpUrl } from "./url-kinds";

/** JWS algorithms a private_key_jwt assertion may be signed with (asymmetric only: RFC 7523 with a key pair). */
export const JWT_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

export interface OAuthClientConfig {
  clientId: string;
  clientSecret?: string;
  scopes?: string[];
  /** "client_credentials": the deployment is the client (no person signs in); absent: a person signs in. */
  grant?: "client_credentials";
  /** private_key_jwt: the client's private key (PKCS#8 PEM), from a Worker secret. */
  privateKey?: string;
  /** The algorithm `privateKey` signs with. */
  algorithm?: JwtAlgorithm;
  /** The authorization server (its issuer) the credentials were registered with: they are sent to no other. */
  issuer?: string;
}

const str = z.string({ error: "expected string" });
const nonEmpty = str.min(1, { error: "expected a non-empty string" });

export const RawOAuthSchema = z.object(
  {
    grant: z.enum(["authorization_code", "client_credentials"], { error: 'expected "authorization_code" or "client_credentials"' }).optional(),
    clientId: nonEmpty,
    clientSecret: str.optional(),
    privateKey: nonEmpty.optional(),
    algorithm: z.enum(JWT_ALGORITHMS, { error: `expected one of ${JWT_ALGORITHMS.join(", ")}` }).optional(),
    issuer: nonEmpty.optional(),
    scopes: z.array(str, { error: "expected array of strings" }).optional(),
  },
  { error: "expected object with clientId" },
);
type RawOAuth = z.infer<typeof RawOAuthSchema>;

/** A whole value that is one `${NAME}` / `${env:NAME}` reference. */
const REFERENCE = /^\$\{(env:)?[A-Za-z_][A-Za-z0-9_]*\}$/;

export interface OAuthLoadContext {
  /** Expands `${VAR}` (reporting an unset one) as every other value of the entry. */
  expand(at: JSONPath, value: string): { value: string; complete: boolean };
  /** Reports a problem at a path of the entry. */
  issue(at: JSONPath, message: string): void;
}

/** Checks the rules between the keys, expands the values. `path` is the `oauth` key's. */
export function loadOAuthConfig(raw: RawOAuth, path: JSONPath, ctx: OAuthLoadContext): OAuthClientConfig {
  const machine = raw.grant === "client_credentials";
  const at = (key: string): JSONPath => [...path, key];
  if (!machine) {
    for (const key of ["privateKey", "algorithm", "issuer"] as const) if (raw[key] !== undefined) ctx.issue(at(key), 'only with "grant": "client_credentials"');
  } else {
    if (raw.clientSecret === undefined && raw.privateKey === undefined)
      ctx.issue(path, '"grant": "client_credentials" needs "clientSecret" (client_secret_basic) or "privateKey" (private_key_jwt)');
    if (raw.clientSecret !== undefined && raw.privateKey !== undefined) ctx.issue(at("privateKey"), 'use either "clientSecret" or "privateKey", not both');
    if (raw.privateKey !== undefined && raw.algorithm === undefined) ctx.issue(at("algorithm"), 'required with "privateKey" (e.g. "ES256" or "RS256")');
    if (raw.algorithm !== undefined && raw.privateKey === undefined) ctx.issue(at("algorithm"), 'only with "privateKey"');
    for (const key of ["clientSecret", "privateKey"] as const) {
      const value = raw[key];
      if (value !== undefined && !REFERENCE.test(value)) ctx.issue(at(key), "expected a reference to a Worker secret (${env:NAME}), not the secret itself");
    }
  }
  const expand = (key: "clientSecret" | "privateKey" | "issuer") => {
    const value = raw[key];
    return value === undefined ? undefined : ctx.expand(at(key), value);
  };
  const [secret, key, issuer] = [expand("clientSecret"), machine ? expand("privateKey") : undefined, machine ? expand("issuer") : undefined];
  // An unresolved reference is reported already: no second issue for it.
  if (issuer?.complete && !isHttpUrl(issuer.value)) ctx.issue(at("issuer"), "expected the authorization server's issuer, an http(s) URL");
  const config: OAuthClientConfig = {
    clientId: ctx.expand(at("clientId"), raw.clientId).value,
    ...(secret ? { clientSecret: secret.value } : {}),
    ...(raw.scopes ? { scopes: raw.scopes } : {}),
    ...(machine ? { grant: "client_credentials" as const } : {}),
    ...(key ? { privateKey: key.value } : {}),
    ...(machine && raw.algorithm ? { algorithm: raw.algorithm } : {}),
    ...(issuer ? { issuer: issuer.value } : {}),
  };
  return config;
}
