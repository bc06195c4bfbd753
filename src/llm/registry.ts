// The models a session may choose from: the deployment's providers (provider-config.ts)
// and, for one user, their own (src/users/user-providers.ts); each provider's models
// (model-list.ts); ALLOWED_MODELS; and the provider built for a choice, with its
// per-model settings (temperature, maximum output tokens, prompted tool mode).
import { scrubSecrets, secretsOf } from "../shared/upstream-text";
import type { ErrorCode } from "../shared/error-codes";
import { EdgehostError } from "../shared/errors";
import { AnthropicProvider } from "./anthropic";
import { GeminiProvider } from "./gemini";
import { withIdleTimeout } from "./idle-timeout";
import { ModelLister } from "./model-list";
import { OpenAiProvider } from "./openai";
import { PromptedProvider, type PromptedOptions } from "./prompted";
import type { AllowList, ProviderSpec, ToolMode } from "./provider-config";
import { LlmError, type LlmEvent, type LlmProvider, type LlmRequest } from "./provider";
import { withRetries, type RetryOptions } from "./retry";

/** A model of a provider: `{provider}/{model}` where written as one string. */
export interface ModelRef {
  provider: string;
  model: string;
}

/** Per-model settings a session keeps with its choice. */
export interface ModelSettings {
  temperature?: number;
  maxOutputTokens?: number;
  /** `prompted` for models without native tool calling; unset: the provider's own mode. */
  toolMode?: ToolMode;
}

export type ModelChoice = ModelRef & ModelSettings;

/** A model as the picker lists it. */
export interface ModelOption extends ModelRef {
  providerLabel: string;
  source: ProviderSpec["source"];
}

export interface BuildOptions {
  retry?: RetryOptions;
  /** Ends a model request that sends nothing for this long (ms). */
  idleTimeoutMs?: number;
  prompted?: PromptedOptions;
  fetch?: typeof fetch;
  /** The fetch a user's own provider goes through: their address, checked at every redirect (src/servers/guarded-fetch.ts). */
  userFetch?: typeof fetch;
}

/** A choice of model this session cannot have (unknown, not allowed, or no longer offered). */
export class ModelNotAvailableError extends EdgehostError {
  readonly code: ErrorCode = "model_not_available";
}

export const modelRefText = (ref: ModelRef) => `${ref.provider}/${ref.model}`;

export class ModelRegistry {
  constructor(
    readonly providers: readonly ProviderSpec[],
    private readonly allowed: AllowList,
    private readonly options: BuildOptions = {},
    private readonly lister = new ModelLister(options.fetch),
  ) {}

  /** This registry with one user's own providers after the deployment's (same list cache), reached through `userFetch`. */
  withUserProviders(own: readonly ProviderSpec[], userFetch?: typeof fetch): ModelRegistry {
    if (own.length === 0) return this;
    const options = userFetch ? { ...this.options, userFetch } : this.options;
    return new ModelRegistry([...this.providers.filter((p) => p.source === "deployment"), ...own], this.allowed, options, this.lister);
  }

  private fetchFor(spec: ProviderSpec): typeof fetch | undefined {
    return spec.source === "user" ? (this.options.userFetch ?? this.options.fetch) : this.options.fetch;
  }

  spec(id: string): ProviderSpec | undefined {
    return this.providers.find((p) => p.id === id);
  }

  /** ALLOWED_MODELS narrows the deployment's models; a user's own provider offers all of its own. */
  permits(spec: ProviderSpec, model: string): boolean {
    return spec.source === "user" || (this.allowed?.(spec.id, model) ?? true);
  }

  /** The model a session starts with: the first deployment provider's default model that is allowed. */
  defaultChoice(): ModelRef | undefined {
    for (const spec of this.providers) {
      if (spec.source !== "deployment") continue;
      const model = [spec.defaultModel, ...(spec.models ?? [])].find((m) => this.permits(spec, m));
      if (model) return { provider: spec.id, model };
    }
    return undefined;
  }

  /** Every model that may be chosen, in provider order; a provider whose list failed is named in `problems`. */
  async list(): Promise<{ options: ModelOption[]; problems: string[] }> {
    const problems: string[] = [];
    const lists = await Promise.all(
      this.providers.map(async (spec) => {
        const listing = await this.lister.models(spec, this.fetchFor(spec));
        if (listing.error) problems.push(`${spec.label}: ${listing.error}`);
        return listing.models
          .filter((model) => this.permits(spec, model))
          .map((model): ModelOption => ({ provider: spec.id, model, providerLabel: spec.label, source: spec.source }));
      }),
    );
    return { options: lists.flat(), problems };
  }

  /** Why `ref` cannot be chosen, or undefined when it can. */
  async refusal(ref: ModelRef): Promise<string | undefined> {
    const spec = this.spec(ref.provider);
    if (!spec) return `there is no model provider "${ref.provider}"`;
    if (!this.permits(spec, ref.model)) return `${modelRefText(ref)} is not among the models this deployment allows`;
    const { models } = await this.lister.models(spec, this.fetchFor(spec));
    if (!models.includes(ref.model)) return `${spec.label} offers no model "${ref.model}"`;
    return undefined;
  }

  /** The provider for `choice`, wrapped for idle timeouts, retries, prompted mode and its settings. */
  build(choice: ModelChoice): LlmProvider {
    const spec = this.spec(choice.provider);
    if (!spec) throw new ModelNotAvailableError(`there is no model provider "${choice.provider}"`);
    const base = baseProvider(spec, choice.model, this.fetchFor(spec));
    const watched = this.options.idleTimeoutMs ? withIdleTimeout(base, this.options.idleTimeoutMs) : base;
    const retried = withRetries(watched, this.options.retry);
    // Prompted mode retries each model call itself (inside its repair loop), so a 429 on a
    // repair attempt is retried even though the first attempt already streamed text.
    const moded = (choice.toolMode ?? spec.toolMode) === "prompted" ? new PromptedProvider(retried, this.options.prompted) : retried;
    const tuned = withSettings(moded, choice);
    return spec.apiKey ? withoutSecret(tuned, spec.apiKey) : tuned;
  }
}

function baseProvider(spec: ProviderSpec, model: string, fetcher: typeof fetch | undefined): LlmProvider {
  switch (spec.kind) {
    case "gemini":
      return new GeminiProvider({ apiKey: spec.apiKey ?? "", model, baseUrl: spec.baseUrl, fetch: fetcher });
    case "openai":
      return new OpenAiProvider({ baseUrl: spec.baseUrl ?? "https://api.openai.com/v1", model, apiKey: spec.apiKey, fetch: fetcher });
    case "anthropic":
      return new AnthropicProvider({ apiKey: spec.apiKey ?? "", model, baseUrl: spec.baseUrl, fetch: fetcher });
  }
}

/** The session's temperature and output limit, where the request itself sets none (sampling sets its own). */
function withSettings(provider: LlmProvider, settings: ModelSettings): LlmProvider {
  if (settings.temperature === undefined && settings.maxOutputTokens === undefined) return provider;
  return {
    name: provider.name,
    model: provider.model,
    stream: (request: LlmRequest) =>
      provider.stream({
        ...request,
        temperature: request.temperature ?? settings.temperature,
        maxOutputTokens: request.maxOutputTokens ?? settings.maxOutputTokens,
      }),
  };
}

/**
 * A key never leaves in an error, in any form (src/shared/upstream-text.ts): some APIs quote
 * the key they refused ("Incorrect API key provided: sk-…"), and errors reach the page and the logs.
 */
function withoutSecret(provider: LlmProvider, secret: string): LlmProvider {
  const secrets = secretsOf(secret);
  const scrub = (text: string) => scrubSecrets(text, secrets);
  async function* stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
    try {
      yield* provider.stream(request);
    } catch (error) {
      if (error instanceof LlmError) {
        const clean = new LlmError(scrub(error.message), error.status, error.retryable, error.retryAfterMs);
        Object.defineProperty(clean, "code", { value: error.code });
        throw clean;
      }
      if (error instanceof Error && !(error instanceof EdgehostError) && error.name !== "AbortError") throw new LlmError(scrub(error.message));
      throw error;
    }
  }
  return { name: provider.name, model: provider.model, stream };
}
