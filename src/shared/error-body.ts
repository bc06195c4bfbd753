// The JSON error body of every HTTP answer edgehost gives: `{error: {code,
// message, ...}}`, with stable codes (error-codes.ts) the page and API clients can switch on.
import { z } from "zod";
import { ERROR_CODE_NAMES, statusOf, type ErrorCode } from "./error-codes";

export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.enum(ERROR_CODE_NAMES),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    retryAfterMs: z.number().optional(),
    /** On 401: how to sign in ("token": the page shows its login form). */
    authMode: z.enum(["access", "token", "none"]).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export function errorBody(code: ErrorCode, message: string, extra: Partial<ErrorBody["error"]> = {}): ErrorBody {
  return ErrorBodySchema.parse({ error: { code, message, ...extra } });
}

/** The whole answer, for code outside Hono (Durable Objects' fetch): the code's status and body. */
export function errorJson(code: ErrorCode, message: string, extra: Partial<ErrorBody["error"]> = {}): Response {
  return Response.json(errorBody(code, message, extra), { status: statusOf(code) });
}
