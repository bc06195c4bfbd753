// /api/my-providers: model providers a user adds with their own key (kept in their
// UserAccount, src/users/user-providers.ts), and POST /test, which tries one (its models
// endpoint, then a one-line answer) before it is saved. The key is write-only: every
// answer masks it, and errors are scrubbed of it. Their sessions offer these models as
// `user:{id}/{model}`; turns on them do not count against DAILY_TOKEN_BUDGET.
import { Hono, type Context } from "hono";
import { z } from "zod";
import { runtimeConfig } from "../config/runtime-config";
import { isLoopback, type AppEnv } from "../identity/identify";
import { fetchModelList } from "../llm/model-list";
import { ModelRegistry } from "../llm/registry";
import { guardedFetch } from "../servers/guarded-fetch";
import { serverUrlRefusal, type UrlPolicy } from "../servers/url-policy";
import { RequestError } from "../shared/errors";
import { errorMessage } from "../shared/logger";
import { secretsOf, upstreamExcerpt } from "../shared/upstream-text";
import { userAccount } from "../users/account";
import { KEY_BOUND, maskedProvider, ownProviderSpecs, UserProviderInputSchema, validateUserProvider, type StoredUserProvider } from "../users/user-providers";
import { parsed } from "./request-body";

const TEST_TIMEOUT_MS = 20_000;

export const myProviders = new Hono<AppEnv>();

const providerBody = parsed("json", UserProviderInputSchema, "the provider entry is invalid");

/** The entry with its stored key when the mask stands for it; a 400 naming each problem otherwise. */
async function checked(c: Context<AppEnv>, input: StoredUserProvider, previous: StoredUserProvider | undefined): Promise<StoredUserProvider> {
  const validated = validateUserProvider(input, previous);
  if (!validated.ok) {
    const message = validated.code === "secret_required" ? KEY_BOUND : "the provider entry is invalid";
    throw new RequestError(validated.code ?? "bad_request", message, { issues: validated.issues });
  }
  if (validated.provider.baseUrl) {
    // The Worker fetches this URL with the user's key: the same rule as the user's MCP servers.
    const why = serverUrlRefusal(validated.provider.baseUrl, requestPolicy(c));
    if (why) throw new RequestError("server_url_refused", why, { issues: [{ path: "baseUrl", message: why }] });
  }
  return validated.provider;
}

/** The address rule for this request: deployed unless served on loopback (src/servers/url-policy.ts). */
function requestPolicy(c: Context<AppEnv>): UrlPolicy {
  return { deployed: !isLoopback(c), allowPrivate: runtimeConfig(c.env).settings.ALLOW_PRIVATE_SERVER_URLS, workerHost: new URL(c.req.url).hostname };
}

/** A direct action on the user's account counts against their rate, like adding a server. */
async function admitCall(c: Context<AppEnv>): Promise<void> {
  const { settings } = runtimeConfig(c.env);
  const spend = await userAccount(c.env, c.var.identity.id).admit("call", { perMinute: settings.RATE_LIMIT_PER_MINUTE, burst: settings.RATE_LIMIT_BURST });
  if (!spend.ok) throw new RequestError(spend.code, spend.message, "retryAfterMs" in spend ? { retryAfterMs: spend.retryAfterMs } : {});
}

myProviders.get("/", async (c) => {
  const providers = await userAccount(c.env, c.var.identity.id).listModelProviders();
  return c.json({ providers: providers.map(maskedProvider) });
});

async function save(c: Context<AppEnv>, input: StoredUserProvider, create: boolean): Promise<Response> {
  const account = userAccount(c.env, c.var.identity.id);
  const previous = await account.getModelProvider(input.id);
  if (!create && !previous) throw new RequestError("not_found", `you have no model provider "${input.id}"`);
  const provider = await checked(c, input, previous);
  await admitCall(c);
  const stored = await account.putModelProvider(provider, create);
  if (!stored.ok) {
    const message =
      stored.code === "duplicate_name"
        ? `you already have a model provider "${input.id}"`
        : stored.code === "too_many"
          ? "you have 20 model providers already: remove one first"
          : `you have no model provider "${input.id}"`;
    throw new RequestError(stored.code === "too_many" ? "bad_request" : stored.code, message, { issues: [{ path: "id", message }] });
  }
  return c.json({ provider: maskedProvider(provider) }, create ? 201 : 200);
}

myProviders.post("/", providerBody, (c) => save(c, c.req.valid("json"), true));

myProviders.put("/:id", providerBody, (c) => {
  const input = c.req.valid("json");
  if (input.id !== c.req.param("id"))
    throw new RequestError("bad_request", "the id cannot change; remove the provider and add it again", {
      issues: [{ path: "id", message: "must match the URL" }],
    });
  return save(c, input, false);
});

myProviders.delete("/:id", async (c) => {
  if (!(await userAccount(c.env, c.var.identity.id).deleteModelProvider(c.req.param("id"))))
    throw new RequestError("not_found", `you have no model provider "${c.req.param("id")}"`);
  return c.body(null, 204);
});

const TestResultSchema = z.union([
  z.object({ ok: z.literal(true), model: z.string(), reply: z.string(), models: z.array(z.string()), modelsError: z.string().optional() }),
  z.object({ ok: z.literal(false), model: z.string().optional(), error: z.string(), models: z.array(z.string()) }),
]);

/** Tries an entry (saved or not): lists its models, then asks its default model for one short answer. */
myProviders.post("/test", providerBody, async (c) => {
  const input = c.req.valid("json");
  const previous = await userAccount(c.env, c.var.identity.id).getModelProvider(input.id);
  const provider = await checked(c, input, previous);
  await admitCall(c);
  const [spec] = ownProviderSpecs([provider]);
  if (!spec) throw new RequestError("bad_request", "the provider entry is invalid");
  // The registry takes the key out of a model error; the listing's error and the reply are the upstream's words too.
  const scrub = (text: string) => upstreamExcerpt(text, secretsOf(provider.apiKey), 300);
  // Every request of the test follows redirects by hand, each hop checked (src/servers/guarded-fetch.ts).
  const outbound = guardedFetch(requestPolicy(c));
  const listing = spec.models ? { models: spec.models } : await fetchModelList(spec, outbound);
  const model = provider.defaultModel ?? listing.models[0] ?? spec.defaultModel;
  const registry = new ModelRegistry([spec], undefined, { retry: { tries: 1 }, fetch: outbound });
  let reply = "";
  try {
    const stream = registry.build({ provider: spec.id, model, maxOutputTokens: 16 }).stream({
      system: "",
      messages: [{ role: "user", text: "Reply with the word OK." }],
      tools: [],
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
    for await (const event of stream) if (event.type === "text") reply += event.delta;
  } catch (error) {
    const why = scrub(errorMessage(error));
    return c.json({
      test: TestResultSchema.parse({ ok: false, model, error: listing.error ? `${why} (and its ${listing.error})` : why, models: listing.models }),
    });
  }
  return c.json({
    test: TestResultSchema.parse({
      ok: true,
      model,
      reply: scrub(reply).slice(0, 200),
      models: listing.models,
      ...(listing.error ? { modelsError: listing.error } : {}),
    }),
  });
});
