// /api/apps: the apps the caller connected to /mcp (Connected apps in the page). Each route
// reads the caller's own account only, so another person's app id is simply not found.
// Disconnect refuses the app's next call at once (its object's generation check), then
// deletes its grants from the token store. A call held for the person's approval (a client
// that cannot ask them) shows up in GET /questions and is answered here, by the person's own
// page only: these routes take the page's identity (an app's OAuth token is not one) and the
// same-origin check every write passes (src/identity/same-origin.ts).
import { type Context, Hono } from "hono";
import { z } from "zod";
import { runtimeConfig } from "../config/runtime-config";
import { disconnectApps, gatewayApp, refreshApp } from "../gateway/apps";
import type { AppEnv } from "../identity/identify";
import { RequestError } from "../shared/errors";
import { userAccount } from "../users/account";
import { AppIdSchema, type ConnectedApp } from "../users/connected-apps";
import { type HeldQuestion, HeldQuestionSchema } from "../users/gateway-questions";
import { parsed } from "./request-body";

export const connectedApps = new Hono<AppEnv>();

/** What the page shows of an app: never its generation (an internal counter). */
function appView(app: ConnectedApp) {
  return {
    id: app.appId,
    clientName: app.clientName,
    clientId: app.clientId,
    redirectHost: app.redirectHost,
    scopes: app.scopes,
    sampling: app.sampling,
    connectedAt: app.connectedAt,
    lastUsed: app.lastUsed,
  };
}

function notFound(): RequestError {
  return new RequestError("app_not_found", "you have no connected app with that id");
}

/** The caller's app named by the path, or a 404 (a malformed id is not found either). */
async function ownApp(c: Context<AppEnv>): Promise<ConnectedApp> {
  const id = AppIdSchema.safeParse(c.req.param("id"));
  const app = id.success ? await userAccount(c.env, c.var.identity.id).getApp(id.data) : undefined;
  if (!app) throw notFound();
  return app;
}

connectedApps.get("/", async (c) => {
  if (!runtimeConfig(c.env).settings.MCP_GATEWAY) return c.json({ enabled: false, apps: [] });
  const apps = await userAccount(c.env, c.var.identity.id).listApps();
  return c.json({ enabled: true, apps: apps.map(appView) });
});

/** A question as the app object wrote it (src/gateway/held-approval.ts): server, tool and arguments. */
const heldQuestion = (json: string): HeldQuestion => HeldQuestionSchema.parse(JSON.parse(json));

/** The person's open questions from their apps' held calls (the page polls this while visible). */
connectedApps.get("/questions", async (c) => {
  const open = await userAccount(c.env, c.var.identity.id).gatewayQuestionsOpen();
  return c.json({
    questions: open.map((q) => ({ id: q.id, appId: q.appId, appName: q.appName, ...heldQuestion(q.questionJson), expiresAt: q.expiresAt })),
  });
});

connectedApps.get("/:id", async (c) => {
  const app = await ownApp(c);
  return c.json({ app: { ...appView(app), alwaysAllowed: await gatewayApp(c.env, app.appId).alwaysAllowed() } });
});

/** `server.tool`, as the chat's "Always allow" keeps it. */
const QualifiedSchema = z
  .string()
  .min(3)
  .max(300)
  .regex(/^[^.\s]+\.\S+$/);

connectedApps.delete("/:id/always/:qualified", async (c) => {
  const app = await ownApp(c);
  const qualified = QualifiedSchema.safeParse(c.req.param("qualified"));
  if (!qualified.success) throw new RequestError("bad_request", "the tool must be named server.tool");
  if (!(await gatewayApp(c.env, app.appId).revokeAlways(qualified.data))) {
    throw new RequestError("not_found", `${qualified.data} is not always allowed for this app`);
  }
  return c.json({ revoked: qualified.data, alwaysAllowed: await gatewayApp(c.env, app.appId).alwaysAllowed() });
});

const AnswerSchema = z.object({ id: z.uuid(), approved: z.boolean() }).strict();

connectedApps.post("/:id/answers", parsed("json", AnswerSchema, 'the body must be {"id": "<question id>", "approved": true|false}'), async (c) => {
  const app = await ownApp(c);
  const { id, approved } = c.req.valid("json");
  const taken = await userAccount(c.env, c.var.identity.id).gatewayQuestionAnswer(app.appId, id);
  if (!taken.ok) {
    if (taken.reason === "answered") throw new RequestError("question_answered", "that question was answered already");
    if (taken.reason === "expired") throw new RequestError("question_expired", "that question expired: the app must call the tool again");
    throw new RequestError("unknown_approval", "this app has no question with that id");
  }
  const question = heldQuestion(taken.questionJson);
  const qualified = `${question.server}.${question.tool}`;
  const result = await gatewayApp(c.env, app.appId).answerHeld(id, approved, qualified, taken.argsHash);
  return c.json({ id, approved, result });
});

const PatchSchema = z.object({ sampling: z.boolean() }).strict();

connectedApps.patch("/:id", parsed("json", PatchSchema, 'the body must be {"sampling": true|false}'), async (c) => {
  const app = await ownApp(c);
  const { sampling } = c.req.valid("json");
  const updated = await userAccount(c.env, c.var.identity.id).setAppSampling(app.appId, sampling);
  if (!updated) throw notFound();
  // The object keeps its own copy of the permission: re-activating under the same generation updates it.
  await refreshApp(c.env, c.var.identity, updated);
  return c.json({ app: appView(updated) });
});

connectedApps.delete("/:id", async (c) => {
  const app = await ownApp(c);
  const removed = await userAccount(c.env, c.var.identity.id).removeApp(app.appId);
  if (!removed) throw notFound();
  await disconnectApps(c.env, new URL(c.req.url).origin, c.var.identity.id, [removed.appId]);
  return c.json({ disconnected: removed.appId });
});
