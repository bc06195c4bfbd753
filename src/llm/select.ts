// Picks the model provider from the Worker's environment bindings, validated
// with zod. Without a usable configuration it returns a sentence for the user
// saying which variable to set and where, instead of a provider. Key values
// never appear in any message.
import { z } from "zod";
import { DEFAULT_GEMINI_MODEL, GeminiProvider } from "./gemini";
import { OpenAiProvider } from "./openai";
import { PromptedProvider, type PromptedOptions } from "./prompted";
import type { LlmProvider } from "./provider";
import { withIdleTimeout } from "./idle-timeout";
import { withRetries, type RetryOptions } from "./retry";

export type ProviderSelection = { provider: LlmProvider } | { missing: string };

export interface SelectOptions {
  retry?: RetryOptions;
  /** Ends a model request that sends nothing for this long (ms). */
  idleTimeoutMs?: number;
  prompted?: PromptedOptions;
  fetch?: typeof fetch;
}

const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

// Empty or blank values count as unset: `.dev.vars` lines like `GEMINI_API_KEY=` are common.
const text = z.preprocess((v) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined), z.string().optional());
const choice = <T extends [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() !== "" ? v.trim().toLowerCase() : undefined), z.enum(values).optional());
const url = z.preprocess((v) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined), z.url({ protocol: /^https?$/ }).optional());

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
});

const where = (name: string, secret: boolean): string =>
  secret
    ? `in .dev.vars for \`wrangler dev\`, or with \`wrangler secret put ${name}\` when deployed`
    : `in .dev.vars for \`wrangler dev\`, or under [vars] in wrangler.toml when deployed`;

const VALID: Record<string, string> = {
  LLM_PROVIDER: 'must be "gemini" or "openai"',
  TOOL_MODE: 'must be "native" or "prompted"',
  GEMINI_BASE_URL: "must be an http(s) URL",
  OPENAI_BASE_URL: "must be an http(s) URL",
};

export function createProvider(env: Record<string, unknown>, options: SelectOptions = {}): ProviderSelection {
  const parsed = ModelEnvSchema.safeParse(env);
  if (!parsed.success) {
    // Only the variable's name and what it must be: a URL may carry a key in its query.
    const name = String(parsed.error.issues[0]?.path[0] ?? "the model configuration");
    return { missing: `No model is available: ${name} ${VALID[name] ?? "is invalid"}. Fix it ${where(name, false)}.` };
  }
  const config = parsed.data;
  let base: LlmProvider;
  if ((config.LLM_PROVIDER ?? "gemini") === "gemini") {
    if (!config.GEMINI_API_KEY) {
      return {
        missing: `No model is configured: set GEMINI_API_KEY ${where("GEMINI_API_KEY", true)}; or use any OpenAI-compatible endpoint with LLM_PROVIDER=openai, OPENAI_BASE_URL and OPENAI_MODEL. Meanwhile the Tool console calls tools without a model.`,
      };
    }
    base = new GeminiProvider({
      apiKey: config.GEMINI_API_KEY,
      model: config.GEMINI_MODEL ?? DEFAULT_GEMINI_MODEL,
      baseUrl: config.GEMINI_BASE_URL,
      fetch: options.fetch,
    });
  } else {
    if (!config.OPENAI_MODEL) {
      return {
        missing: `No model is configured: LLM_PROVIDER is "openai" but OPENAI_MODEL is not set; set it to the model name your endpoint serves ${where("OPENAI_MODEL", false)}.`,
      };
    }
    if (!config.OPENAI_BASE_URL && !config.OPENAI_API_KEY) {
      return {
        missing: `No model is configured: set OPENAI_API_KEY ${where("OPENAI_API_KEY", true)}, or set OPENAI_BASE_URL to a local endpoint that needs no key (e.g. http://localhost:11434/v1 for Ollama).`,
      };
    }
    base = new OpenAiProvider({
      baseUrl: config.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL,
      model: config.OPENAI_MODEL,
      apiKey: config.OPENAI_API_KEY,
      fetch: options.fetch,
    });
  }
  const watched = options.idleTimeoutMs ? withIdleTimeout(base, options.idleTimeoutMs) : base;
  const retried = withRetries(watched, options.retry);
  // Prompted mode retries each model call itself (inside its repair loop), so a 429 on a
  // repair attempt is retried even though the first attempt already streamed text.
  return { provider: config.TOOL_MODE === "prompted" ? new PromptedProvider(retried, options.prompted) : retried };
}
