// GET /api/bootstrap: what the page reads on every load, in one answer instead of six
// (issue 37: a warm reload is index.html, this and the chat's socket), and in one call to the
// person's account (UserAccount.pageStart). Each part is what its own route answers, from the
// same account method: `me` (GET /api/me), `sessions`
// (GET /api/sessions), `oauth.signedIn` (GET /oauth/servers), `models` (GET /api/models),
// `shared` (GET /api/shared-with-me) and `presets` (GET /api/presets: a new chat's welcome
// offers them, docs/presets.md).
// Those routes stay for other callers and for reading one part again.
// The models list may wait on the caller's own providers (each listed from its address,
// up to 10 s): past MODELS_WAIT_MS the answer goes without it (`models: null`) and the
// page reads GET /api/models itself, so a slow provider never holds the page.
import { Hono } from "hono";
import { z } from "zod";
import { runtimeConfig } from "../config/runtime-config";
import type { AppEnv } from "../identity/identify";
import { userAccount } from "../users/account";
import { SharedChatSchema } from "../users/shared-chats";
import { PresetSchema } from "../users/presets";
import { whoIsCalling } from "./api";
import { ModelListSchema, modelsFor } from "./models";
import { MeSchema, SessionListSchema } from "./schemas";

const MODELS_WAIT_MS = 400;

export const BootstrapSchema = z.object({
  me: MeSchema,
  sessions: SessionListSchema.shape.sessions,
  oauth: z.object({ signedIn: z.array(z.string()) }),
  /** Null when the models took longer than the rest (read GET /api/models then). */
  models: ModelListSchema.nullable(),
  /** Connected apps and their open questions (the page polls GET /api/apps/questions only when there are apps). */
  apps: z.object({ connected: z.number().int(), questions: z.number().int() }),
  /** The chats others invited the caller to, as GET /api/shared-with-me lists them (docs/people.md). */
  shared: z.array(SharedChatSchema),
  /** The person's presets (a new chat's welcome shows them as chips). */
  presets: z.array(PresetSchema),
});

export const bootstrap = new Hono<AppEnv>();

bootstrap.get("/", async (c) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), MODELS_WAIT_MS);
  });
  // A list that fails here fails as GET /api/models would (the page reads that route again).
  const models = modelsFor(c).catch(() => null);
  // Kept running past the answer: the listing is cached in memory for the next GET /api/models,
  // which would otherwise wait on a fetch this request's end cancelled (and hang).
  c.executionCtx.waitUntil(models);
  // Everything the account holds for the load in one call to it (not one per part).
  const [start, listed] = await Promise.all([
    userAccount(c.env, c.var.identity.id).pageStart(runtimeConfig(c.env).settings.MCP_GATEWAY),
    Promise.race([models, late]).finally(() => clearTimeout(timer)),
  ]);
  const { sessions, signedIn, apps, shared, presets } = start;
  // Whoever is answered is seen (the operator's list of users), as with GET /api/me.
  return c.json(BootstrapSchema.parse({ me: whoIsCalling(c), sessions, oauth: { signedIn }, models: listed, apps, shared, presets }));
});
