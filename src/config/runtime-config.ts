// The Worker's configuration, parsed once per isolate (once per wake of a Durable
// Object) into one typed object that every route and object reads: settings and
// their problems, the model provider (or why there is none), and sign-in.
import { readAuthConfig, type AuthConfig } from "./auth";
import { createRegistry } from "../llm/select";
import { ModelRegistry, type ModelRef } from "../llm/registry";
import type { LlmProvider } from "../llm/provider";
import type { ModelFix } from "../llm/provider-config";
import type { Env } from "./env";
import { readSettings, type Settings } from "./settings";
import { createJsonLogger, type Logger } from "../shared/logger";

export interface ModelInfo {
  model: { provider: string; model: string } | null;
  /** Why there is no model, and how to set one. */
  notice?: string;
  /** The one variable to set first when there is no model (the page's short notice). */
  fix?: ModelFix;
}

export interface RuntimeConfig {
  settings: Settings;
  /** Settings that were invalid (named, never echoed) and fell back to their defaults. */
  problems: string[];
  /** The deployment's default model as a provider (a session's own choice is built from `models`). */
  provider?: LlmProvider;
  /** The deployment's providers and models (src/llm/registry.ts); none when none is usable (a user may still bring their own). */
  models: ModelRegistry;
  defaultModel?: ModelRef;
  modelInfo: ModelInfo;
  auth: AuthConfig;
  /** JSON lines at LOG_LEVEL (Workers Logs makes their fields searchable); each part adds its own fields. */
  logger: Logger;
}

// Keyed by the env object: the same for every request of an isolate, and fresh when
// wrangler reloads the Worker with new variables.
const parsed = new WeakMap<object, RuntimeConfig>();

export function runtimeConfig(env: Env): RuntimeConfig {
  let config = parsed.get(env);
  if (!config) {
    const { settings, problems } = readSettings(env);
    const options = { retry: { initialMs: settings.LLM_RETRY_INITIAL_MS }, idleTimeoutMs: settings.LLM_IDLE_TIMEOUT_MS };
    const selected = createRegistry(env, options);
    const ready = "registry" in selected ? selected : undefined;
    config = {
      settings,
      problems,
      provider: ready?.registry.build(ready.defaultModel),
      models: ready?.registry ?? new ModelRegistry([], undefined, options),
      defaultModel: ready?.defaultModel,
      modelInfo: ready
        ? { model: { ...ready.defaultModel } }
        : { model: null, ...("missing" in selected ? { notice: selected.missing, fix: selected.fix } : {}) },
      auth: readAuthConfig(env),
      logger: createJsonLogger({ level: settings.LOG_LEVEL, base: { service: "edgehost" } }),
    };
    parsed.set(env, config);
  }
  return config;
}
