// No cross-site requests: the WebSocket upgrade and every state-changing request
// must come from this origin (or one listed in ALLOWED_ORIGINS), and a request
// with a body must say it is JSON. Hono's csrf() only looks at form-like content
// types on unsafe methods, so it would pass a cross-site WebSocket upgrade (a
// GET) and a JSON body sent without a preflight; this covers both. A request
// with no Origin (curl, API clients) is not a browser's cross-site request.
import type { MiddlewareHandler } from "hono";
import { authConfigOf, type AppEnv } from "./identify";
import { RequestError } from "../shared/errors";

const SAFE_METHOD = /^(GET|HEAD|OPTIONS)$/;
/** A file upload (src/http/files.ts) is its raw bytes: application/octet-stream, which no cross-site form can send either. */
const FILE_UPLOAD = /^\/sessions\/[^/]+\/files$/;
const CONNECT_FORM = /^\/connect\/(authorize|sign-in)$/;

function hasBody(headers: Headers): boolean {
  const length = headers.get("content-length");
  return headers.has("transfer-encoding") || (length !== null && length !== "0");
}

export function sameOrigin(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const upgrade = c.req.header("upgrade")?.toLowerCase() === "websocket";
    if (!upgrade && SAFE_METHOD.test(c.req.method)) return next();
    const auth = authConfigOf(c.env);
    const allowed = auth.mode === "misconfigured" ? [] : auth.allowedOrigins;
    const origin = c.req.header("origin");
    const own = new URL(c.req.url).origin;
    const listed = origin !== undefined && (origin === own || allowed.includes(origin));
    if (origin !== undefined && !listed) {
      throw new RequestError(
        "forbidden_origin",
        `requests from ${origin === "null" ? "an opaque origin" : "another origin"} are refused; add it to ALLOWED_ORIGINS to allow it`,
      );
    }
    if (c.req.header("sec-fetch-site") === "cross-site" && !listed) {
      throw new RequestError("forbidden_origin", "cross-site requests are refused");
    }
    const type = c.req.header("content-type") ?? "";
    const rawUpload = c.req.method === "POST" && FILE_UPLOAD.test(c.req.path) && /^application\/octet-stream\s*(;|$)/i.test(type);
    // The consent and sign-in forms of /connect (src/http/connect.ts) work without script: a form post, from this origin only (checked above).
    const connectForm = c.req.method === "POST" && CONNECT_FORM.test(c.req.path) && /^application\/x-www-form-urlencoded\s*(;|$)/i.test(type);
    if (!upgrade && !rawUpload && !connectForm && hasBody(c.req.raw.headers) && !/^application\/json\s*(;|$)/i.test(type)) {
      throw new RequestError("unsupported_media_type", "send the body as Content-Type: application/json");
    }
    return next();
  };
}
