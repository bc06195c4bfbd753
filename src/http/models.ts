// GET /api/models: the models the caller may choose for a session (the picker's list):
// the deployment's, narrowed by ALLOWED_MODELS, then the caller's own providers' models.
// A provider whose models endpoint failed is named in `problems` (its default model stands in).
import { Hono, type Context } from "hono";
import { z } from "zod";
import { runtimeConfig } from "../config/runtime-config";
import { isLoopback, type AppEnv } from "../identity/identify";
import { ModelOptionSchema } from "../protocol/messages";
import { guardedFetch } from "../servers/guarded-fetch";
import { userAccount } from "../users/account";
import { ownProviderSpecs } from "../users/user-providers";

export const ModelListSchema = z.object({
  models: z.array(ModelOptionSchema),
  /** The model a new session starts with; null when the deployment has none. */
  defaultModel: z.object({ provider: z.string(), model: z.string() }).nullable(),
  problems: z.array(z.string()),
  /** Why the deployment has no model (and what to set), when it has none. */
  notice: z.string().optional(),
  /**
   * With no model: how this Worker runs (`local`: served on loopback, i.e. `wrangler dev`)
   * and the one variable to set, so the page names the one command that applies.
   */
  setup: z
    .object({
      running: z.enum(["local", "deployed"]),
      variable: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/),
      secret: z.boolean(),
    })
    .optional(),
});

export const models = new Hono<AppEnv>();

/** The models the caller may choose (GET /api/models, and GET /api/bootstrap's `models`). */
export async function modelsFor(c: Context<AppEnv>): Promise<z.infer<typeof ModelListSchema>> {
  const config = runtimeConfig(c.env);
  const own = ownProviderSpecs(await userAccount(c.env, c.var.identity.id).listModelProviders());
  // The user's own providers are listed from their addresses, each hop checked (src/servers/guarded-fetch.ts).
  const policy = { deployed: !isLoopback(c), allowPrivate: config.settings.ALLOW_PRIVATE_SERVER_URLS, workerHost: new URL(c.req.url).hostname };
  const { options, problems } = await config.models.withUserProviders(own, guardedFetch(policy)).list();
  return ModelListSchema.parse({
    models: options,
    defaultModel: config.defaultModel ?? null,
    problems,
    ...(config.defaultModel ? {} : { notice: config.modelInfo.notice }),
    ...(config.defaultModel || !config.modelInfo.fix ? {} : { setup: { running: isLoopback(c) ? "local" : "deployed", ...config.modelInfo.fix } }),
  });
}

models.get("/", async (c) => c.json(await modelsFor(c)));
