// What a session's servers offer the person: GET /sessions/:id/resources,
// /resource-templates and /prompts (the enabled servers' lists), and
// POST /sessions/:id/complete (suggestions for one argument of a prompt or
// resource template, from servers that advertise completions). Owner-checked
// like every session route.
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { validator } from "hono/validator";
import type { AppEnv } from "../identity/identify";
import { CompleteInputSchema, CompletionSchema, type Completion } from "../mcp/catalog";
import type { CatalogKind, CatalogOutcome } from "../session/catalog-calls";
import { errorBody } from "../shared/error-body";
import { errorResponse } from "./errors";
import { ownedSession } from "./owned-session";

export const sessionCatalog = new Hono<AppEnv>();

const MAX_COMPLETE_BODY_BYTES = 16 * 1024;

for (const kind of ["resources", "resource-templates", "prompts"] satisfies CatalogKind[]) {
  sessionCatalog.get(`/:id/${kind}`, async (c) => {
    const owned = await ownedSession(c, c.req.param("id"), { claim: false });
    if (owned instanceof Response) return owned;
    return c.json(await owned.catalog(kind));
  });
}

const completeBody = validator("json", (value, c) => {
  const parsed = CompleteInputSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const first = issues[0];
  return c.json(
    errorBody("bad_request", `${first ? `${first.path || "body"}: ${first.message}; ` : ""}the body must be {"server", "ref": {"type": "ref/prompt", "name"} | {"type": "ref/resource", "uri"}, "argument": {"name", "value"}, "context"?}`, { issues }),
    400,
  );
});

sessionCatalog.post(
  "/:id/complete",
  bodyLimit({ maxSize: MAX_COMPLETE_BODY_BYTES, onError: (c) => c.json(errorBody("payload_too_large", `the body is larger than ${MAX_COMPLETE_BODY_BYTES} bytes`), 413) }),
  completeBody,
  async (c) => {
    const owned = await ownedSession(c, c.req.param("id"), { claim: false });
    if (owned instanceof Response) return owned;
    // The RPC stub's mapped type loses the union's discriminant: the shape is the same.
    const outcome = (await owned.complete(c.req.valid("json"))) as CatalogOutcome<Completion>;
    if (!outcome.ok) return errorResponse(c, outcome.error);
    return c.json({ completion: CompletionSchema.parse(outcome.body) });
  },
);
