// One log line per request to the authorization server's endpoints (authorize, token,
// revoke, register): which route, which client, how it ended. The provider answers token,
// revocation and registration itself, before the Hono app and its request line, so without
// this an operator would not see them. Only the client id (public), the grant type and
// the outcome are read out of a request or an answer: never a code, a verifier, a token,
// a client secret or a redirect URI's query.
import type { Logger } from "../shared/logger";

/** The endpoint a request is for (auth-server.ts tells them by path; revoke is told from token by its form). */
export type OAuthRoute = "authorize" | "token" | "revoke" | "register";

/** Forms bigger than this are not read for the log (the provider refuses or reads them itself). */
const MAX_FORM_BYTES = 16_384;

interface Seen {
  route: OAuthRoute;
  clientId?: string;
  grant?: string;
}

/** The public parts of the request: the client id (query or form), and the grant type of a token request. */
async function requestFacts(request: Request, route: Exclude<OAuthRoute, "revoke">): Promise<Seen> {
  const url = new URL(request.url);
  if (request.method !== "POST") return { route, ...clientOf(url.searchParams.get("client_id")) };
  if (route !== "token") return { route };
  const size = Number(request.headers.get("content-length") ?? MAX_FORM_BYTES + 1);
  if (!(size <= MAX_FORM_BYTES) || !request.headers.get("content-type")?.includes("application/x-www-form-urlencoded")) return { route };
  const form = new URLSearchParams(await request.clone().text());
  // RFC 7009: a revocation is a POST to the token endpoint with `token` and no grant type.
  const revoke = !form.has("grant_type") && form.has("token");
  return {
    route: revoke ? "revoke" : "token",
    ...clientOf(form.get("client_id") ?? basicClientId(request.headers.get("authorization"))),
    ...(revoke ? {} : { grant: short(form.get("grant_type")) }),
  };
}

/** A confidential client's id from HTTP Basic (the secret half is never kept). */
function basicClientId(header: string | null): string | null {
  if (!header?.startsWith("Basic ")) return null;
  try {
    const decoded = atob(header.slice(6));
    return decodeURIComponent(decoded.slice(0, Math.max(0, decoded.indexOf(":"))));
  } catch {
    return null;
  }
}

const short = (value: string | null | undefined) => (value ? value.slice(0, 200) : undefined);
const clientOf = (id: string | null | undefined) => (id ? { clientId: short(id) } : {});

/** How it ended: `ok`, or the OAuth error code of the answer (RFC 6749 §5.2), else the status. */
async function outcomeOf(response: Response, route: OAuthRoute): Promise<{ outcome: string; clientId?: string; clientName?: string }> {
  const json = response.headers.get("content-type")?.includes("application/json");
  if (response.status < 400) {
    if (route !== "register" || !json) return { outcome: "ok" };
    // A registration's answer names the client it made (its secret, if any, is not read out).
    const made = (await response
      .clone()
      .json()
      .catch(() => ({}))) as { client_id?: unknown; client_name?: unknown };
    return {
      outcome: "ok",
      ...clientOf(typeof made.client_id === "string" ? made.client_id : undefined),
      ...(typeof made.client_name === "string" ? { clientName: short(made.client_name) } : {}),
    };
  }
  const body = json
    ? ((await response
        .clone()
        .json()
        .catch(() => ({}))) as { error?: unknown })
    : {};
  return { outcome: typeof body.error === "string" ? (short(body.error) ?? "error") : `http_${response.status}` };
}

/** Answers the request with `answer` and logs its line (a failure to read the facts never fails the request). */
export async function loggedOAuth(
  request: Request,
  route: Exclude<OAuthRoute, "revoke">,
  answer: () => Response | Promise<Response>,
  logger: Logger,
): Promise<Response> {
  const started = Date.now();
  const seen = await requestFacts(request, route).catch((): Seen => ({ route }));
  const response = await answer();
  const ended = await outcomeOf(response, seen.route).catch(() => ({ outcome: `http_${response.status}` }));
  logger.info("oauth request", { ...seen, ...ended, method: request.method, status: response.status, ms: Date.now() - started });
  return response;
}
