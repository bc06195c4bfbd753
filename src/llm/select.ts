// The deployment's model registry from the Worker's environment (provider-config.ts),
// and its default provider. Without a usable configuration it returns a sentence for
// the user saying which variable to set and where, instead of a registry. Key values
// never appear in any message.
import { readDeploymentProviders } from "./provider-config";
import type { LlmProvider } from "./provider";
import { ModelRegistry, type BuildOptions, type ModelRef } from "./registry";

export { ModelEnvSchema } from "./provider-config";

export type SelectOptions = BuildOptions;

export type RegistrySelection = { registry: ModelRegistry; defaultModel: ModelRef } | { missing: string };
export type ProviderSelection = { provider: LlmProvider } | { missing: string };

export function createRegistry(env: Record<string, unknown>, options: SelectOptions = {}): RegistrySelection {
  const read = readDeploymentProviders(env);
  if (!read.ok) return { missing: read.missing };
  const registry = new ModelRegistry(read.specs, read.allowed, options);
  const defaultModel = registry.defaultChoice();
  if (!defaultModel) {
    return {
      missing: "No model is available: ALLOWED_MODELS allows none of the configured providers' default models. Add one of them, or pin models the list allows.",
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
