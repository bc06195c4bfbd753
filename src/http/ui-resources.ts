// MCP Apps routes, under /sessions/{id}: the document of a tool's `ui://`
// resource, which the page frames in a sandboxed iframe, and the tool calls an app
// makes back, which the session asks approval for like a model's. Both need a
// session the caller owns (404 otherwise).
//
//   GET  /sessions/{id}/ui-resource?server=S&uri=ui://…   the app's HTML, with its CSP as a header
//   POST /sessions/{id}/app-tool-call  {"server", "tool", "arguments", "id"?}  → {"result": CallToolResult}
//   DELETE /sessions/{id}/app-tool-call/{callId}  cancels a pending call of that id (204, or 404)
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../identity/identify";
import type { AppResourceOutcome, AppToolCallOutcome } from "../session/mcp-apps";
import { MAX_TOOL_BODY_BYTES } from "../shared/limits";
import { appCsp } from "./app-csp";
import { ownedSession } from "./owned-session";
import { limitBody, parsed } from "./request-body";
import { RequestError } from "../shared/errors";

export const uiResources = new Hono<AppEnv>();

const ServerName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a server name is 1-64 letters, digits, '_' or '-'");

const ResourceQuerySchema = z.object({
  server: ServerName,
  uri: z.string().min(1).max(2048),
});

const CallId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a call id is 1-64 letters, digits, '_' or '-'");

const AppToolCallSchema = z.object({
  /** The page's id for the call, to cancel it by; its approval question is `app-{id}`. */
  id: CallId.optional(),
  server: ServerName,
  tool: z.string().min(1).max(256),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

const resourceQuery = parsed("query", ResourceQuerySchema, "give ?server=NAME&uri=ui://… once each");

uiResources.get("/:id/ui-resource", resourceQuery, async (c) => {
  const owned = await ownedSession(c, c.req.param("id"), { claim: false });
  const { server, uri } = c.req.valid("query");
  // The RPC stub's mapped type loses the union's discriminant: the shape is the same.
  const outcome = (await owned.appResource(server, uri)) as AppResourceOutcome;
  if (!outcome.ok) throw RequestError.from(outcome.error);
  return c.body(outcome.resource.html, 200, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": appCsp(outcome.resource.csp),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    // A server may change its app; the page asks again for each card.
    "Cache-Control": "no-store",
  });
});

const callBody = parsed("json", AppToolCallSchema, 'the body must be {"server": NAME, "tool": NAME, "arguments"?: {...}}', { checkDepth: true });

uiResources.post("/:id/app-tool-call", limitBody(MAX_TOOL_BODY_BYTES), callBody, async (c) => {
  const owned = await ownedSession(c, c.req.param("id"), { claim: false });
  const outcome = (await owned.appToolCall(c.req.valid("json"))) as AppToolCallOutcome;
  if (!outcome.ok) throw RequestError.from(outcome.error);
  return c.json({ result: outcome.result });
});

uiResources.delete("/:id/app-tool-call/:callId", async (c) => {
  const callId = CallId.safeParse(c.req.param("callId"));
  if (!callId.success) throw new RequestError("bad_request", callId.error.issues[0]?.message ?? "bad call id");
  const owned = await ownedSession(c, c.req.param("id"), { claim: false });
  if (!(await owned.cancelAppToolCall(callId.data))) throw new RequestError("not_found", `no pending app call ${callId.data}`);
  return c.body(null, 204);
});
