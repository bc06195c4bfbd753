// The one mapping from a thrown error to an HTTP response (the Worker's `onError`):
// the status of its code in the closed table (../shared/error-codes.ts), the JSON body
// (../shared/error-body.ts), and Retry-After when the error says when to come back.
// Never a stack trace or an internal path.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { runtimeConfig } from "../config/runtime-config";
import { errorBody } from "../shared/error-body";
import { errorMessage } from "../shared/logger";
import { statusOf } from "../shared/error-codes";
import { EdgehostError, type PublicError } from "../shared/errors";
import type { AppEnv } from "../identity/identify";
import { ACCOUNT_ERASING_MESSAGE, AccountErasingError } from "../users/erase-state";

export function errorResponse(c: Context, error: unknown): Response {
  // Hono's validator throws 400 on a body that is not JSON; its other middlewares keep their own status.
  if (error instanceof HTTPException) {
    (c as Context<AppEnv>).set("errorCode", error.status === 400 ? "bad_json" : "http_error");
    if (error.status === 400) return c.json(errorBody("bad_json", "the body is not valid JSON"), 400);
    return c.json(errorBody("http_error", error.message || "request refused"), error.status);
  }
  // The account's refusal during Delete my data arrives from its Durable Object as a plain Error (RPC keeps only the message).
  if (!(error instanceof EdgehostError) && error instanceof Error && error.message === ACCOUNT_ERASING_MESSAGE) error = new AccountErasingError();
  const pub: PublicError = error instanceof EdgehostError ? error.toPublic() : { code: "internal", message: "internal error" };
  // The one place an unexpected error is seen: its message (not its stack) goes to the log, never to the caller.
  if (!(error instanceof EdgehostError))
    runtimeConfig((c as Context<AppEnv>).env).logger.error("unexpected error", {
      requestId: (c as Context<AppEnv>).get("requestId"),
      error: errorMessage(error),
    });
  const retryAfterMs = pub.retryAfterMs !== undefined && pub.retryAfterMs > 0 ? pub.retryAfterMs : undefined;
  if (retryAfterMs !== undefined) c.header("Retry-After", String(Math.ceil(retryAfterMs / 1000)));
  const { code, message, issues, authMode } = pub;
  // For the request's log line (request-log.ts); never the message, which may quote input.
  (c as Context<AppEnv>).set("errorCode", code);
  return c.json(errorBody(code, message, { issues, retryAfterMs: pub.retryAfterMs, authMode }), statusOf(code) as ContentfulStatusCode);
}
