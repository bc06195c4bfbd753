// /api routes: who am I, my sessions, health, servers (config, state,
// capabilities), metrics, and direct tool calls. Server state lives in Durable
// Objects (MCP connections cannot be shared across requests in a Worker isolate):
// `?session=` picks one of the caller's sessions, else the caller's own console
// session answers.
import { Hono, type Context } from "hono";
import type { z } from "zod";
import { validator } from "hono/validator";
import type { AppEnv } from "../identity/identify";
import { runtimeConfig } from "../config/runtime-config";
import { userAccount } from "../users/account";
import { MAX_TOOL_BODY_BYTES } from "../shared/limits";
import { restartServers } from "./my-servers";
import { SESSION_ID, badSessionId, sessionOrConsole } from "./owned-session";
import { ToolCallResponseSchema, type DirectCallOutcome } from "../session/answers";
import { HealthSchema, MeSchema, MetricsSchema, ServersSchema, SessionListSchema, ToolCallRequestSchema } from "./schemas";
import { limitBody, parsed } from "./request-body";
import { RequestError } from "../shared/errors";
import { operations } from "../ops/operations-object";

export const api = new Hono<AppEnv>();

/** Who is calling (GET /api/me, and GET /api/bootstrap's `me`). */
export function whoIsCalling(c: Context<AppEnv>): z.infer<typeof MeSchema> {
  const { id, name } = c.var.identity;
  // The page asks this once per load: the operator's list of users (/admin) learns who signed in, after the answer.
  c.executionCtx.waitUntil(
    operations(c.env)
      .userSeen(id, name)
      .catch(() => undefined),
  );
  return MeSchema.parse({ user: { id, name }, authMode: c.var.auth.mode });
}

/** The caller's sessions (GET /api/sessions, and GET /api/bootstrap's `sessions`). */
export async function callersSessions(c: Context<AppEnv>): Promise<z.infer<typeof SessionListSchema>> {
  return SessionListSchema.parse({ sessions: await userAccount(c.env, c.var.identity.id).listSessions() });
}

api.get("/me", (c) => c.json(whoIsCalling(c)));

api.get("/sessions", async (c) => c.json(await callersSessions(c)));

api.get("/health", (c) => {
  const { modelInfo } = runtimeConfig(c.env);
  return c.json(HealthSchema.parse({ ok: true, service: "edgehost", ...modelInfo }));
});

const sessionQuery = validator("query", (value, _c) => {
  const given = value.session;
  // A repeated ?session= is ambiguous: refused rather than silently picking one.
  if (Array.isArray(given) || (given !== undefined && !SESSION_ID.test(given))) throw badSessionId();
  return { session: given };
});

api.get("/servers", sessionQuery, async (c) => {
  const stub = await sessionOrConsole(c, c.req.valid("query").session);
  return c.json(ServersSchema.parse({ servers: await stub.serversInfo() }));
});

api.post("/servers/restart", restartServers);

api.get("/metrics", sessionQuery, async (c) => {
  const stub = await sessionOrConsole(c, c.req.valid("query").session);
  return c.json(MetricsSchema.parse(await stub.metricsInfo()));
});

const toolBody = parsed(
  "json",
  ToolCallRequestSchema,
  'the body must be {"arguments": {...}, "approved"?: boolean, "remember"?: boolean, "sessionId"?: string}',
  { checkDepth: true },
);

api.post("/tools/:name", limitBody(MAX_TOOL_BODY_BYTES), toolBody, async (c) => {
  const name = c.req.param("name");
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}\..+$/.test(name)) throw new RequestError("bad_tool_name", "tool names are {server}.{tool}");
  const body = c.req.valid("json");
  const stub = await sessionOrConsole(c, body.sessionId);
  // `approved` counts here only because every route before this one checked who is
  // calling, that the request is same-origin, and that the session is theirs.
  // The RPC stub's mapped type loses the union's discriminant: the shape is the same.
  const outcome = (await stub.callTool(name, body.arguments, { approved: body.approved ?? false, remember: body.remember ?? false })) as DirectCallOutcome;
  if (!outcome.ok) throw RequestError.from(outcome.error);
  return c.json(ToolCallResponseSchema.parse(outcome.body));
});
