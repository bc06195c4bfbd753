// `/mcp` after the OAuth provider checked the bearer token (audience, expiry, revocation):
// the grant's props are checked again (zod), a browser's Origin must be ours or listed in
// ALLOWED_ORIGINS (DNS rebinding, a page of another site calling with a stolen token), and the
// request goes to the app's own object with the client's credentials taken off. The token never
// goes further than here: the object reaches upstream servers with the account's own tokens.
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Env } from "../config/env";
import { runtimeConfig } from "../config/runtime-config";
import { errorJson } from "../shared/error-body";
import { encodeGatewayHeader, GATEWAY_HEADER, GrantPropsSchema } from "./props";

/** One JSON-RPC message (or a 2025 batch): as much as the local bridge takes by default. */
export const MCP_BODY_MAX_BYTES = 4 * 1024 * 1024;

/** Request headers a client sends that the app's object must never see. */
const STRIPPED = ["authorization", "cookie", GATEWAY_HEADER.toLowerCase()];

function originAllowed(env: Env, request: Request): boolean {
  const origin = request.headers.get("origin");
  // No Origin: not a browser's cross-site request (MCP clients are programs).
  if (origin === null) return true;
  if (origin === new URL(request.url).origin) return true;
  const auth = runtimeConfig(env).auth;
  return auth.mode !== "misconfigured" && auth.allowedOrigins.includes(origin);
}

type GrantContext = ExecutionContext & { props?: unknown };

async function forward(request: Request, env: Env, ctx: GrantContext, readBody: () => Promise<ArrayBuffer>): Promise<Response> {
  const props = GrantPropsSchema.safeParse(ctx.props);
  if (!props.success) {
    // A grant this code did not make (or an older shape): the client must authorize again.
    const refused = errorJson("app_disconnected", "this token's grant is not one edgehost can serve; sign in again");
    refused.headers.set("WWW-Authenticate", 'Bearer error="invalid_token"');
    return refused;
  }
  if (!originAllowed(env, request)) {
    return errorJson("forbidden_origin", "requests to /mcp from another site's page are refused; add it to ALLOWED_ORIGINS to allow it");
  }
  const headers = new Headers(request.headers);
  for (const name of STRIPPED) headers.delete(name);
  headers.set(GATEWAY_HEADER, encodeGatewayHeader(props.data));
  const app = env.GATEWAY_APP.get(env.GATEWAY_APP.idFromName(props.data.appId));
  // A client's message is one JSON-RPC body: read here, so the object may refuse without reading a stream it was handed.
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await readBody();
  return app.fetch(new Request(request.url, { method: request.method, headers, body, signal: request.signal }));
}

// Hono only for its body limit: counted as the body arrives, so a declared Content-Length cannot lie past it.
const api = new Hono<{ Bindings: Env }>();
api.use(
  "*",
  bodyLimit({
    maxSize: MCP_BODY_MAX_BYTES,
    onError: () => errorJson("payload_too_large", `an MCP message at /mcp may be at most ${MCP_BODY_MAX_BYTES} bytes`),
  }),
);
api.all("*", (c) => forward(c.req.raw, c.env, c.executionCtx as GrantContext, () => c.req.arrayBuffer()));

export const forwardToApp = {
  fetch: (request: Request, env: Env, ctx: GrantContext): Promise<Response> => Promise.resolve(api.fetch(request, env, ctx)),
};
