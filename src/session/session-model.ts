// A session's model: the choice stored with the session (provider, model and its settings),
// checked against what the deployment and the owner's own providers offer, and the
// provider a turn runs on. A stored choice that is no longer offered falls back to the
// deployment's default model, and the turn says so.
import type { RuntimeConfig } from "../config/runtime-config";
import type { LlmProvider } from "../llm/provider";
import type { ProviderSpec } from "../llm/provider-config";
import { ModelNotAvailableError, modelRefText, type ModelChoice, type ModelRegistry } from "../llm/registry";
import { ModelChoiceSchema } from "../protocol/messages";
import type { ModelPreferences } from "@modelcontextprotocol/client";
import type { RegistryPick } from "../orchestrator/sampling";
import { chooseFromRegistry, rankedSamplingModels } from "../orchestrator/sampling-model";
import { guardedFetch } from "../servers/guarded-fetch";
import type { HistoryStore } from "./history";

const MODEL_KEY = "model";

export interface SessionModelDeps {
  store: Pick<HistoryStore, "getSetting" | "setSetting">;
  config: () => RuntimeConfig;
  /** The owner's own providers (src/users/user-providers.ts), keys included: only ever used inside the Worker. */
  ownProviders: () => Promise<ProviderSpec[]>;
}

/** What a turn runs on, or why no model can answer. */
export type ResolvedModel = { ok: true; choice: ModelChoice; provider: LlmProvider; ownKey: boolean; notice?: string } | { ok: false; notice: string };

export class SessionModel {
  /**
   * The provider the last turn ran on, kept for the next while what it was built from is the
   * same (its provider's settings, key included, and the session's choice): a provider keeps
   * its SDK client (gemini.ts), which was built anew for every request on the first token's
   * path (issue 37). Per session, so never shared between people; a changed key or choice
   * builds a new one on the next turn. The text compared stays in this object's memory.
   */
  private kept?: { from: string; provider: LlmProvider };

  constructor(private readonly deps: SessionModelDeps) {}

  private build(registry: ModelRegistry, choice: ModelChoice): LlmProvider {
    const from = JSON.stringify([registry.spec(choice.provider) ?? null, choice]);
    if (this.kept?.from !== from) this.kept = { from, provider: registry.build(choice) };
    return this.kept.provider;
  }

  /** The stored choice (parsed: a row an older version wrote that no longer reads is dropped). */
  stored(): ModelChoice | undefined {
    const parsed = ModelChoiceSchema.safeParse(this.deps.store.getSetting(MODEL_KEY));
    return parsed.success ? parsed.data : undefined;
  }

  /** The choice as the page shows it: the stored one, else the deployment's default model. */
  current(): ModelChoice | null {
    return this.stored() ?? this.deps.config().defaultModel ?? null;
  }

  /** The deployment's models with the owner's own providers. */
  async registry(): Promise<ModelRegistry> {
    const own = await this.deps.ownProviders();
    const config = this.deps.config();
    // The owner's providers are their addresses: the rule of their servers in a session (deployed unless AUTH_MODE=none).
    const policy = { deployed: config.auth.mode !== "none", allowPrivate: config.settings.ALLOW_PRIVATE_SERVER_URLS };
    return config.models.withUserProviders(own, guardedFetch(policy));
  }

  /** Stores `choice` once it is offered; throws ModelNotAvailableError naming why not. */
  async set(choice: ModelChoice): Promise<ModelChoice> {
    const why = await (await this.registry()).refusal(choice);
    if (why) throw new ModelNotAvailableError(`${modelRefText(choice)} cannot be chosen: ${why}`);
    const clean = ModelChoiceSchema.parse(choice);
    this.deps.store.setSetting(MODEL_KEY, clean);
    return clean;
  }

  /** The provider for the next turn. */
  async resolve(): Promise<ResolvedModel> {
    const config = this.deps.config();
    const stored = this.stored();
    const registry = stored?.provider.startsWith("user:") ? await this.registry() : config.models;
    let notice: string | undefined;
    if (stored) {
      const why = await registry.refusal(stored);
      if (!why) return { ok: true, choice: stored, provider: this.build(registry, stored), ownKey: registry.spec(stored.provider)?.source === "user" };
      notice = `The model ${modelRefText(stored)} is not available any more (${why})`;
    }
    const fallback = config.defaultModel;
    if (!fallback)
      return {
        ok: false,
        notice: notice
          ? `${notice}, and there is no other model. ${config.modelInfo.notice ?? ""}`.trim()
          : (config.modelInfo.notice ?? "No model is configured."),
      };
    return {
      ok: true,
      choice: fallback,
      provider: this.build(config.models, fallback),
      ownKey: false,
      ...(notice ? { notice: `${notice}; this turn uses ${modelRefText(fallback)}.` } : {}),
    };
  }

  /**
   * The model that answers a server's sampling request: among every model this session may
   * use (the deployment's and the owner's own), by the server's preferences, with
   * SAMPLING_MODELS (`listed`) as the ranking for its priorities; else the session's model.
   */
  async samplingPick(preferences: ModelPreferences | undefined, listed: readonly string[]): Promise<RegistryPick> {
    const resolved = await this.resolve();
    if (!resolved.ok) throw new ModelNotAvailableError(resolved.notice);
    const registry = await this.registry();
    const current = { provider: resolved.choice.provider, model: resolved.choice.model };
    const { options } = await registry.list();
    const ranked = rankedSamplingModels(listed, options, current).filter((ref) => registry.spec(ref.provider));
    const { ref, reason } = chooseFromRegistry(preferences, { current, offered: options, ranked });
    const same = ref.provider === current.provider && ref.model === current.model;
    return {
      label: ref.provider === current.provider ? ref.model : modelRefText(ref),
      model: ref.model,
      reason,
      // The session's own model keeps its settings; another is asked as the provider serves it.
      provider: same ? resolved.provider : registry.build(ref),
      budgeted: registry.spec(ref.provider)?.source !== "user",
    };
  }

  forget(): void {
    this.deps.store.setSetting(MODEL_KEY, undefined);
  }
}
