// The one mapping from an error to an HTTP response: the status for each stable
// code, and the JSON body (../shared/error-body.ts) it carries.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { EdgehostError, type PublicError } from "../shared/errors";
import { errorBody } from "../shared/error-body";

const STATUS_FOR: Record<string, ContentfulStatusCode> = {
  tool_not_found: 404,
  not_found: 404,
  tool_arguments: 400,
  approval_required: 403,
  server_unavailable: 503,
  circuit_open: 503,
  tool_timeout: 504,
  protocol: 502,
  cancelled: 499 as ContentfulStatusCode,
  rate_limited: 429,
  budget_exhausted: 429,
  // Identity and the user's account (src/identity/sign-in-throttle.ts, src/users/session-limit.ts).
  sign_in_throttled: 429,
  too_many_sessions: 429,
  config: 500,
  // Resources, prompts and completion (src/mcp/catalog.ts).
  unknown_server: 404,
  server_disabled: 409,
  resource_not_found: 404,
  prompt_not_found: 404,
  argument_missing: 400,
  argument_unknown: 400,
  prompt_failed: 502,
  completions_unsupported: 400,
  too_many_attachments: 400,
  // MCP Apps (src/session/mcp-apps.ts)
  not_ui_resource: 400,
  bad_ui_resource: 502,
  denied: 403,
  duplicate_call: 409,
};

/** A typed error (or its public form) as an HTTP response; anything else is a bare 500. */
export function errorResponse(c: Context, error: PublicError | unknown): Response {
  const pub: PublicError = error instanceof EdgehostError ? error.toPublic() : isPublicError(error) ? error : { code: "internal", message: "internal error" };
  return c.json(errorBody(pub.code, pub.message, { issues: pub.issues, retryAfterMs: pub.retryAfterMs }), STATUS_FOR[pub.code] ?? 500);
}

function isPublicError(value: unknown): value is PublicError {
  return typeof value === "object" && value !== null && typeof (value as PublicError).code === "string" && typeof (value as PublicError).message === "string";
}
