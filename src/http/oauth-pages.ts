// What /oauth serves to a browser or an authorization server: the callback page
// (markup only; its script is public/oauth-callback.js, same origin) and this
// client's metadata document for authorization servers that take URL client ids.

/** The page the authorization server redirects to; it carries no data of its own. */
export function callbackPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Signing in… · edgehost</title>
<link rel="stylesheet" href="/style.css">
<script type="module" src="/oauth-callback.js"></script>
</head>
<body class="oauth-callback">
<main>
<h1>edgehost</h1>
<p id="oauth-status" role="status">Finishing the sign-in…</p>
<p><a id="oauth-back" href="/" hidden>Back to edgehost</a></p>
</main>
</body>
</html>`;
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
