// Finding a conversation: GET /api/search?q= (full-text over the caller's own session
// titles and messages, src/users/session-search.ts) and PUT / DELETE /sessions/:id/pin
// (pinned sessions list first). The index is the caller's account's, so no query can
// reach another user's sessions; pinning checks the session is the caller's first.
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../identity/identify";
import { userAccount } from "../users/account";
import { SearchResultSchema } from "../users/session-search";
import { RequestError } from "../shared/errors";
import { ownedSession } from "./owned-session";
import { parsed } from "./request-body";

export const sessionFind = new Hono<AppEnv>();

const SearchQuerySchema = z.object({ q: z.string().trim().min(1, "type something to search for").max(200, "at most 200 characters") });
export const SearchResponseSchema = z.object({ query: z.string(), results: z.array(SearchResultSchema) });

sessionFind.get(
  "/api/search",
  parsed("query", SearchQuerySchema, ([first]) => `q: ${first?.message ?? "missing"}`),
  async (c) => {
    const { q } = c.req.valid("query");
    const results = await userAccount(c.env, c.var.identity.id).searchSessions(q);
    c.header("Cache-Control", "no-store");
    return c.json(SearchResponseSchema.parse({ query: q, results }));
  },
);

for (const [method, pinned] of [
  ["put", true],
  ["delete", false],
] as const) {
  sessionFind[method]("/sessions/:id/pin", async (c) => {
    const id = c.req.param("id");
    await ownedSession(c, id, { claim: false });
    if (!(await userAccount(c.env, c.var.identity.id).pinSession(id, pinned))) throw new RequestError("not_found", "no such session");
    return c.json({ id, pinned });
  });
}
