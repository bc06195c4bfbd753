// The deployment's model registry from the Worker's environment (provider-config.ts),
// and its default provider. Without a usable configuration it returns a sentence for
// the user saying which variable to set and where, instead of a registry. Key values
// never appear in any message.
import { readDeploymentProviders, type ModelFix } from "./provider-config";
import type { LlmProvider } from "./provider";
import { ModelRegistry, type BuildOptions, type ModelRef } from "./registry";

export { ModelEnvSchema } from "./provider-config";

export type SelectOptions = BuildOptions;

/** No model: the sentence saying what to set and where, and the one variable to set first. */
export type Missing = { missing: string; fix: ModelFix };
export type RegistrySelection = { registry: ModelRegistry; defaultModel: ModelRef } | Missing;
export type ProviderSelection = { provider: LlmProvider } | Missing;

export function createRegistry(env: Record<string, unknown>, options: SelectOptions = {}): RegistrySelection {
  const read = readDeploymentProviders(env);
  if (!read.ok) return { missing: read.missing, fix: read.fix };
  const registry = new ModelRegistry(read.specs, read.allowed, options);
  const defaultModel = registry.defaultChoice();
  if (!defaultModel) {
    return {
      missing: "No model is available: ALLOWED_MODELS allows none of the configured providers' default models. Add one of them, or pin models the list allows.",
      fix: { variable: "ALLOWED_MODELS", secret: false },
    };
  }
  return { registry, defaultModel };
}

/** The deployment's default model as a provider (its retries, idle timeout and tool mode applied). */
export function createProvider(env: Record<string, unknown>, options: SelectOptions = {}): ProviderSelection {
  const selection = createRegistry(env, options);
  if ("missing" in selection) return selection;
  return { provider: selection.registry.build(selection.defaultModel) };
}
