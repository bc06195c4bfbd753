// What a session's servers offer the person: GET /sessions/:id/resources,
// /resource-templates and /prompts (the enabled servers' lists), and
// POST /sessions/:id/complete (suggestions for one argument of a prompt or
// resource template, from servers that advertise completions). Owner-checked
// like every session route.
import { Hono } from "hono";
import type { AppEnv } from "../identity/identify";
import { CompleteInputSchema, CompletionSchema, type Completion } from "../mcp/catalog";
import type { CatalogKind, CatalogOutcome } from "../session/catalog-calls";
import { ownedSession } from "./owned-session";
import { limitBody, parsed } from "./request-body";
import { RequestError } from "../shared/errors";

export const sessionCatalog = new Hono<AppEnv>();

const MAX_COMPLETE_BODY_BYTES = 16 * 1024;

for (const kind of ["resources", "resource-templates", "prompts"] satisfies CatalogKind[]) {
  sessionCatalog.get(`/:id/${kind}`, async (c) => {
    const owned = await ownedSession(c, c.req.param("id"), { claim: false });
    return c.json(await owned.catalog(kind));
  });
}

const completeBody = parsed(
  "json",
  CompleteInputSchema,
  ([first]) =>
    `${first ? `${first.path || "body"}: ${first.message}; ` : ""}the body must be {"server", "ref": {"type": "ref/prompt", "name"} | {"type": "ref/resource", "uri"}, "argument": {"name", "value"}, "context"?}`,
);

sessionCatalog.post("/:id/complete", limitBody(MAX_COMPLETE_BODY_BYTES), completeBody, async (c) => {
  const owned = await ownedSession(c, c.req.param("id"), { claim: false });
  // The RPC stub's mapped type loses the union's discriminant: the shape is the same.
  const outcome = (await owned.complete(c.req.valid("json"))) as CatalogOutcome<Completion>;
  if (!outcome.ok) throw RequestError.from(outcome.error);
  return c.json({ completion: CompletionSchema.parse(outcome.body) });
});
