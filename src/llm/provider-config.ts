// Which model providers a deployment has: `MODEL_PROVIDERS` (a JSON object of named
// providers, each with its kind, endpoint, the name of the variable holding its key,
// and its models), plus the single provider today's variables describe (LLM_PROVIDER,
// GEMINI_*, OPENAI_*), and ALLOWED_MODELS, which narrows what users choose from.
// Parsed with zod; a problem is reported by variable and JSON path, never by value.
import { z } from "zod";

export const PROVIDER_KINDS = ["gemini", "openai", "anthropic"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
export type ToolMode = "native" | "prompted";

export const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** A provider's id: how a model is named (`{provider}/{model}`) in ALLOWED_MODELS, the picker and `/model`. */
export const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** Model names as providers spell them: `gemini-2.5-flash`, `meta-llama/llama-3.3-70b`, `llama3:8b`. */
export const MODEL_NAME = /^[A-Za-z0-9][\w.:/@+-]{0,127}$/;

/** One provider, resolved: its key read from the environment (or the user's account). */
export interface ProviderSpec {
  id: string;
  kind: ProviderKind;
  label: string;
  /** The API's base URL; undefined: the provider's own. */
  baseUrl?: string;
  apiKey?: string;
  /** Pinned models; undefined: listed from the provider's models endpoint. */
  models?: string[];
  defaultModel: string;
  toolMode: ToolMode;
  /** Whose it is: a user's own provider spends on their key, not the deployment's budget. */
  source: "deployment" | "user";
}

const modelName = z.string().regex(MODEL_NAME, "a model name (letters, digits and . _ : / @ + -)");
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** One entry of MODEL_PROVIDERS (docs/configuration.md). */
export const ProviderEntrySchema = z.strictObject({
  kind: z.enum(PROVIDER_KINDS),
  label: z.string().min(1).max(64).optional(),
  baseUrl: httpUrl.optional(),
  /** The variable (a secret) holding the key: keys never sit in MODEL_PROVIDERS itself. */
  apiKeyVar: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "the name of a variable, e.g. GROQ_API_KEY")
    .optional(),
  models: z.array(modelName).min(1).max(200).optional(),
  defaultModel: modelName.optional(),
  toolMode: z.enum(["native", "prompted"]).optional(),
});
export type ProviderEntry = z.infer<typeof ProviderEntrySchema>;

export const ModelProvidersSchema = z
  .record(z.string().regex(PROVIDER_ID, "provider ids are 1-32 lower-case letters, digits, _ or -"), ProviderEntrySchema)
  .refine((v) => Object.keys(v).length <= 20, "at most 20 providers");

// Empty or blank values count as unset: `.dev.vars` lines like `GEMINI_API_KEY=` are common.
const blankless = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const text = z.preprocess(blankless, z.string().optional());
const choice = <T extends [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() !== "" ? v.trim().toLowerCase() : undefined), z.enum(values).optional());
const url = z.preprocess(blankless, z.url({ protocol: /^https?$/ }).optional());

/** The model variables of the environment (docs/configuration.md). */
export const ModelEnvSchema = z.object({
  LLM_PROVIDER: choice(["gemini", "openai"]),
  TOOL_MODE: choice(["native", "prompted"]),
  GEMINI_API_KEY: text,
  GEMINI_MODEL: text,
  GEMINI_BASE_URL: url,
  OPENAI_BASE_URL: url,
  OPENAI_API_KEY: text,
  OPENAI_MODEL: text,
  MODEL_PROVIDERS: text,
  ALLOWED_MODELS: text,
});

const VALID: Record<string, string> = {
  LLM_PROVIDER: 'must be "gemini" or "openai"',
  TOOL_MODE: 'must be "native" or "prompted"',
  GEMINI_BASE_URL: "must be an http(s) URL",
  OPENAI_BASE_URL: "must be an http(s) URL",
};

export const where = (name: string, secret: boolean): string =>
  secret
    ? `in .dev.vars for \`wrangler dev\`, or with \`wrangler secret put ${name}\` when deployed`
    : `in .dev.vars for \`wrangler dev\`, or under [vars] in wrangler.toml when deployed`;

/** ALLOWED_MODELS: `provider/model` patterns, `*` matching any run of characters (`openai/gpt-4o*`, `anthropic/*`). */
export type AllowList = ((provider: string, model: string) => boolean) | undefined;

/** The one variable that would give the deployment a model, and whether it is a secret (the page's short notice names its command). */
export interface ModelFix {
  variable: string;
  secret: boolean;
}

/** Why there is no model (`missing`, the whole sentence) and the variable to set first. */
export type NoModel = { ok: false; missing: string; fix: ModelFix };

export type DeploymentProviders = { ok: true; specs: ProviderSpec[]; allowed: AllowList } | NoModel;

const NOTHING_CONFIGURED = `No model is configured: set GEMINI_API_KEY ${where("GEMINI_API_KEY", true)}; or use any OpenAI-compatible endpoint with LLM_PROVIDER=openai, OPENAI_BASE_URL and OPENAI_MODEL; or declare several providers in MODEL_PROVIDERS. Meanwhile the Tool console calls tools without a model.`;

/** The deployment's providers, or the sentence saying what to set. */
export function readDeploymentProviders(env: Record<string, unknown>): DeploymentProviders {
  const parsed = ModelEnvSchema.safeParse(env);
  if (!parsed.success) {
    // Only the variable's name and what it must be: a URL may carry a key in its query.
    const name = String(parsed.error.issues[0]?.path[0] ?? "the model configuration");
    return {
      ok: false,
      missing: `No model is available: ${name} ${VALID[name] ?? "is invalid"}. Fix it ${where(name, false)}.`,
      fix: { variable: name, secret: false },
    };
  }
  const config = parsed.data;
  const declared = config.MODEL_PROVIDERS === undefined ? { ok: true as const, specs: [] } : declaredProviders(config.MODEL_PROVIDERS, env);
  if (!declared.ok) return declared;
  const allowed = allowList(config.ALLOWED_MODELS);
  if (!allowed.ok) return allowed;
  const specs = [...declared.specs];
  // Today's variables still make one provider, unless MODEL_PROVIDERS declares that id itself.
  // With MODEL_PROVIDERS set, they count only when named (LLM_PROVIDER) or given a key.
  const legacyKind = config.LLM_PROVIDER ?? "gemini";
  const legacyWanted = config.LLM_PROVIDER !== undefined || config.GEMINI_API_KEY !== undefined || specs.length === 0;
  if (legacyWanted && !specs.some((s) => s.id === legacyKind)) {
    const legacy = legacyProvider(config);
    if ("missing" in legacy) return { ok: false, ...legacy };
    specs.unshift(legacy.spec);
  }
  if (specs.length === 0) return { ok: false, ...NOTHING };
  return { ok: true, specs, allowed: allowed.allowed };
}

const NOTHING = { missing: NOTHING_CONFIGURED, fix: { variable: "GEMINI_API_KEY", secret: true } };

type Legacy = { spec: ProviderSpec } | Omit<NoModel, "ok">;

function legacyProvider(config: z.infer<typeof ModelEnvSchema>): Legacy {
  const toolMode: ToolMode = config.TOOL_MODE === "prompted" ? "prompted" : "native";
  if ((config.LLM_PROVIDER ?? "gemini") === "gemini") {
    if (!config.GEMINI_API_KEY) return NOTHING;
    const model = config.GEMINI_MODEL ?? DEFAULT_GEMINI_MODEL;
    return {
      spec: {
        id: "gemini",
        kind: "gemini",
        label: "Gemini",
        baseUrl: config.GEMINI_BASE_URL,
        apiKey: config.GEMINI_API_KEY,
        models: [model],
        defaultModel: model,
        toolMode,
        source: "deployment",
      },
    };
  }
  if (!config.OPENAI_MODEL) {
    return {
      missing: `No model is configured: LLM_PROVIDER is "openai" but OPENAI_MODEL is not set; set it to the model name your endpoint serves ${where("OPENAI_MODEL", false)}.`,
      fix: { variable: "OPENAI_MODEL", secret: false },
    };
  }
  if (!config.OPENAI_BASE_URL && !config.OPENAI_API_KEY) {
    return {
      missing: `No model is configured: set OPENAI_API_KEY ${where("OPENAI_API_KEY", true)}, or set OPENAI_BASE_URL to a local endpoint that needs no key (e.g. http://localhost:11434/v1 for Ollama).`,
      fix: { variable: "OPENAI_API_KEY", secret: true },
    };
  }
  return {
    spec: {
      id: "openai",
      kind: "openai",
      label: "OpenAI-compatible",
      baseUrl: config.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL,
      apiKey: config.OPENAI_API_KEY,
      models: [config.OPENAI_MODEL],
      defaultModel: config.OPENAI_MODEL,
      toolMode,
      source: "deployment",
    },
  };
}

const invalid = (detail: string, fix: ModelFix = { variable: "MODEL_PROVIDERS", secret: false }): NoModel => ({
  ok: false,
  missing: `No model is available: MODEL_PROVIDERS is invalid (${detail}). Fix it ${where("MODEL_PROVIDERS", false)}.`,
  fix,
});

function declaredProviders(json: string, env: Record<string, unknown>): { ok: true; specs: ProviderSpec[] } | NoModel {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return invalid("not valid JSON");
  }
  const parsed = ModelProvidersSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(`${issue?.path.join(".") || "the value"}: ${issue?.message ?? "invalid"}`);
  }
  const specs: ProviderSpec[] = [];
  for (const [id, entry] of Object.entries(parsed.data)) {
    const apiKey = entry.apiKeyVar ? blankless(env[entry.apiKeyVar]) : undefined;
    if (entry.apiKeyVar && apiKey === undefined)
      return invalid(`${id}.apiKeyVar: ${entry.apiKeyVar} is not set (set it ${where(entry.apiKeyVar, true)})`, { variable: entry.apiKeyVar, secret: true });
    const problem = entryProblem(entry, apiKey !== undefined);
    if (problem) return invalid(`${id}.${problem}`);
    specs.push(toSpec(id, entry, apiKey, "deployment"));
  }
  return { ok: true, specs };
}

/** What a provider entry lacks to be usable (a key, a model to start with), as `field: why`; shared with users' own providers. */
export function entryProblem(entry: Pick<ProviderEntry, "kind" | "baseUrl" | "models" | "defaultModel">, hasKey: boolean): string | undefined {
  if (entry.kind === "gemini" && !hasKey) return "apiKeyVar: Gemini needs a key";
  if (entry.kind === "anthropic" && !hasKey) return "apiKeyVar: Anthropic needs a key";
  if (entry.kind === "openai" && !entry.baseUrl && !hasKey) return "apiKeyVar: OpenAI's own endpoint needs a key (a local baseUrl needs none)";
  if (entry.kind !== "gemini" && !entry.defaultModel && !entry.models) return 'models: list the models, or name a "defaultModel"';
  if (entry.defaultModel && entry.models && !entry.models.includes(entry.defaultModel)) return "defaultModel: not one of models";
  return undefined;
}

export function toSpec(id: string, entry: ProviderEntry, apiKey: string | undefined, source: ProviderSpec["source"]): ProviderSpec {
  return {
    id,
    kind: entry.kind,
    label: entry.label ?? id,
    baseUrl: entry.baseUrl ?? (entry.kind === "openai" ? OPENAI_DEFAULT_BASE_URL : undefined),
    apiKey,
    models: entry.models,
    defaultModel: entry.defaultModel ?? entry.models?.[0] ?? DEFAULT_GEMINI_MODEL,
    toolMode: entry.toolMode ?? "native",
    source,
  };
}

function allowList(value: string | undefined): { ok: true; allowed: AllowList } | NoModel {
  if (value === undefined) return { ok: true, allowed: undefined };
  const patterns = value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const bad = patterns.find((p) => !/^[a-z0-9*][a-z0-9_*-]{0,31}\/[A-Za-z0-9*][\w.:/@+*-]{0,127}$/.test(p));
  if (bad !== undefined || patterns.length === 0 || patterns.length > 200) {
    return {
      ok: false,
      missing: `No model is available: ALLOWED_MODELS must be a comma list of provider/model names, * matching anything (e.g. gemini/gemini-2.5-flash,openai/*). Fix it ${where("ALLOWED_MODELS", false)}.`,
      fix: { variable: "ALLOWED_MODELS", secret: false },
    };
  }
  const regexes = patterns.map((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`));
  return { ok: true, allowed: (provider, model) => regexes.some((r) => r.test(`${provider}/${model}`)) };
}
