// RFC 7009 token revocation when the user signs out of (or removes) a server. The
// SDK has no revocation call; this is one form POST per token to the endpoint the
// authorization server's metadata names, authenticated as the token requests are.
import { z } from "zod";
import type { OAuthRecord } from "./provider";

// The metadata type the SDK gives covers OpenID documents too, which do not name these fields.
const RevocationMetadataSchema = z.object({
  revocation_endpoint: z.url().optional(),
  revocation_endpoint_auth_methods_supported: z.array(z.string()).optional(),
});

export type Revocation = { revoked: number; endpoint: false } | { revoked: number; endpoint: true; failed: number };

export async function revokeTokens(record: OAuthRecord | undefined, fetchImpl: typeof fetch = fetch): Promise<Revocation> {
  const metadata = RevocationMetadataSchema.safeParse(record?.discovery?.authorizationServerMetadata ?? {});
  const endpoint = metadata.success ? metadata.data.revocation_endpoint : undefined;
  const client = record?.client;
  const tokens = record?.tokens;
  if (!endpoint || !client || !tokens) return { revoked: 0, endpoint: false };
  // The refresh token first: revoking it also ends the access tokens issued from it (RFC 7009 §2.1).
  const pending: [string, string][] = [];
  if (tokens.refresh_token) pending.push([tokens.refresh_token, "refresh_token"]);
  pending.push([tokens.access_token, "access_token"]);
  const methods = metadata.success ? metadata.data.revocation_endpoint_auth_methods_supported : undefined;
  const basic = client.client_secret !== undefined && (methods === undefined || methods.includes("client_secret_basic"));
  let revoked = 0;
  let failed = 0;
  for (const [token, hint] of pending) {
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers = new Headers({ "content-type": "application/x-www-form-urlencoded" });
    if (basic) headers.set("authorization", `Basic ${btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret ?? "")}`)}`);
    else {
      body.set("client_id", client.client_id);
      if (client.client_secret) body.set("client_secret", client.client_secret);
    }
    try {
      const response = await fetchImpl(endpoint, { method: "POST", headers, body });
      await response.body?.cancel();
      if (response.ok) revoked++;
      else failed++;
    } catch {
      failed++;
    }
  }
  return { revoked, endpoint: true, failed };
}
