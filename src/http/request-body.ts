// Request bodies and queries, checked the same way on every route: a byte limit
// counted as the body arrives (413), a nesting limit where a body carries arbitrary
// JSON, and a zod schema whose failures are answered 400 with each issue's path.
import { bodyLimit } from "hono/body-limit";
import { validator } from "hono/validator";
import type { z } from "zod";
import { errorResponse } from "./errors";
import { MAX_JSON_DEPTH, tooDeep } from "../shared/limits";
import { RequestError } from "../shared/errors";

export interface Issue {
  path: string;
  message: string;
}

export const zodIssues = (error: z.ZodError): Issue[] => error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));

/** Bodies over `maxSize` bytes are answered 413 (a declared Content-Length cannot lie its way past it). */
export const limitBody = (maxSize: number) =>
  bodyLimit({ maxSize, onError: (c) => errorResponse(c, new RequestError("payload_too_large", `the body is larger than ${maxSize} bytes`)) });

/**
 * The JSON body (or the query) parsed by `schema`; a failure is answered 400 with
 * `message` (made from the issues when it is a function) and the issues.
 */
export function parsed<T extends z.ZodType>(
  target: "json" | "query",
  schema: T,
  message: string | ((issues: Issue[]) => string),
  options: { checkDepth?: boolean } = {},
) {
  return validator(target, (value, _c) => {
    if (options.checkDepth && tooDeep(value)) throw new RequestError("bad_request", `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
    const result = schema.safeParse(value);
    if (result.success) return result.data as z.infer<T>;
    const issues = zodIssues(result.error);
    throw new RequestError("bad_request", typeof message === "string" ? message : message(issues), { issues });
  });
}
