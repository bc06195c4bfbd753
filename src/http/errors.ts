// The JSON error body every route answers with: `{error: {code, message, ...}}`,
// stable codes the page and API clients can switch on.
import { ErrorBodySchema, type ErrorBody } from "./schemas";

export function errorBody(code: string, message: string, extra: Partial<ErrorBody["error"]> = {}): ErrorBody {
  return ErrorBodySchema.parse({ error: { code, message, ...extra } });
}
