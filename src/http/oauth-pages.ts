// What /oauth serves to a browser or an authorization server: the callback page
// (markup only; its script is public/oauth-callback.js, same origin) and this
// client's metadata document for authorization servers that take URL client ids.
import { htmlDocument } from "./html-document";

/** The page the authorization server redirects to; it carries no data of its own. */
export function callbackPage(): string {
  return htmlDocument({
    title: "Signing in…",
    referrer: "no-referrer",
    head: '<link rel="stylesheet" href="/style.css">\n<script type="module" src="/oauth-callback.js"></script>\n',
    bodyClass: "oauth-callback",
    body: `<h1>edgehost</h1>
<p id="oauth-status" role="status">Finishing the sign-in…</p>
<p><a id="oauth-back" href="/" hidden>Back to edgehost</a></p>`,
  });
}

/** The client ID metadata document (draft-ietf-oauth-client-id-metadata-document): `client_id` is its own URL. */
export function clientMetadataDocument(origin: string): Record<string, unknown> {
  return {
    client_id: `${origin}/oauth/client-metadata.json`,
    client_name: "edgehost",
    client_uri: origin,
    redirect_uris: [`${origin}/oauth/callback`],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}
