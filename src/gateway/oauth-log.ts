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

/**
 * The public parts of the request: the client id (query or form), and the grant type of a token
 * request. A token request's small form is read here and handed on as a fresh request (no tee).
 */
async function requestFacts(request: Request, route: Exclude<OAuthRoute, "revoke">): Promise<{ seen: Seen; request: Request }> {
  const url = new URL(request.url);
  if (request.method !== "POST") return { seen: { route, ...clientOf(url.searchParams.get("client_id")) }, request };
  if (route !== "token") return { seen: { route }, request };
  const size = Number(request.headers.get("content-length") ?? MAX_FORM_BYTES + 1);
  if (!(size <= MAX_FORM_BYTES) || !request.headers.get("content-type")?.includes("application/x-www-form-urlencoded")) return { seen: { route }, request };
  const bytes = await request.arrayBuffer();
  const form = new URLSearchParams(new TextDecoder().decode(bytes));
  // RFC 7009: a revocation is a POST to the token endpoint with `token` and no grant type.
  const revoke = !form.has("grant_type") && form.has("token");
  const seen: Seen = {
    route: revoke ? "revoke" : "token",
    ...clientOf(form.get("client_id") ?? basicClientId(request.headers.get("authorization"))),
    ...(revoke ? {} : { grant: short(form.get("grant_type")) }),
  };
  return { seen, request: new Request(request, { body: bytes }) };
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

/** The answer's JSON fields, read once and the answer made again from the same bytes (small: OAuth answers). */
async function readJson(response: Response): Promise<{ body: Record<string, unknown>; response: Response }> {
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object") body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON after all: nothing to read out of it.
  }
  return { body, response: new Response(text, response) };
}

/** How it ended: `ok`, or the OAuth error code of the answer (RFC 6749 §5.2), else the status. */
async function outcomeOf(
  answer: Response,
  route: OAuthRoute,
): Promise<{ fields: { outcome: string; clientId?: string; clientName?: string }; response: Response }> {
  const json = answer.headers.get("content-type")?.includes("application/json") && answer.body !== null;
  if (answer.status < 400 && (route !== "register" || !json)) return { fields: { outcome: "ok" }, response: answer };
  if (!json) return { fields: { outcome: `http_${answer.status}` }, response: answer };
  const { body, response } = await readJson(answer);
  if (answer.status >= 400) return { fields: { outcome: typeof body.error === "string" ? (short(body.error) ?? "error") : `http_${answer.status}` }, response };
  // A registration's answer names the client it made (its secret, if any, is not read out).
  return {
    fields: {
      outcome: "ok",
      ...clientOf(typeof body.client_id === "string" ? body.client_id : undefined),
      ...(typeof body.client_name === "string" ? { clientName: short(body.client_name) ?? "" } : {}),
    },
    response,
  };
}

/** Answers the request with `answer` and logs its line (a failure to read the facts never fails the request). */
export async function loggedOAuth(
  request: Request,
  route: Exclude<OAuthRoute, "revoke">,
  answer: (request: Request) => Response | Promise<Response>,
  logger: Logger,
): Promise<Response> {
  const started = Date.now();
  const { seen, request: onward } = await requestFacts(request, route);
  const { fields, response } = await outcomeOf(await answer(onward), seen.route);
  logger.info("oauth request", { ...seen, ...fields, method: request.method, status: response.status, ms: Date.now() - started });
  return response;
}
