// The one mapping from a thrown error to an HTTP response (the Worker's `onError`):
// the status of its code in the closed table (../shared/error-codes.ts), the JSON body
// (../shared/error-body.ts), and Retry-After when the error says when to come back.
// Never a stack trace or an internal path.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { errorBody } from "../shared/error-body";
import { statusOf } from "../shared/error-codes";
import { EdgehostError, type PublicError } from "../shared/errors";

export function errorResponse(c: Context, error: unknown): Response {
  // Hono's validator throws 400 on a body that is not JSON; its other middlewares keep their own status.
  if (error instanceof HTTPException) {
    if (error.status === 400) return c.json(errorBody("bad_json", "the body is not valid JSON"), 400);
    return c.json(errorBody("http_error", error.message || "request refused"), error.status);
  }
  const pub: PublicError = error instanceof EdgehostError ? error.toPublic() : { code: "internal", message: "internal error" };
  const retryAfterMs = pub.retryAfterMs !== undefined && pub.retryAfterMs > 0 ? pub.retryAfterMs : undefined;
  if (retryAfterMs !== undefined) c.header("Retry-After", String(Math.ceil(retryAfterMs / 1000)));
  const { code, message, issues, authMode } = pub;
  return c.json(errorBody(code, message, { issues, retryAfterMs: pub.retryAfterMs, authMode }), statusOf(code) as ContentfulStatusCode);
}
