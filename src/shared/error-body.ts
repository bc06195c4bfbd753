// The JSON error body of every HTTP answer edgehost gives: `{error: {code,
// message, ...}}`, with stable codes the page and API clients can switch on.
import { z } from "zod";

export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    retryAfterMs: z.number().optional(),
    /** On 401: how to sign in ("token": the page shows its login form). */
    authMode: z.enum(["access", "token", "none"]).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export function errorBody(code: string, message: string, extra: Partial<ErrorBody["error"]> = {}): ErrorBody {
  return ErrorBodySchema.parse({ error: { code, message, ...extra } });
}
