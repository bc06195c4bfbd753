// A provider's models: the pinned list, or what its models endpoint answers (Gemini's
// `GET /v1beta/models`, OpenAI-compatible `GET /models`, Anthropic's `GET /v1/models`),
// kept in memory for a while per endpoint and key, so a picker opening does not call the
// provider each time. A listing that fails falls back to the provider's default model.
import { z } from "zod";
import { errorText } from "./errors";
import type { ProviderSpec } from "./provider-config";

const LISTED_FOR_MS = 10 * 60_000;
/** A failed listing is tried again sooner. */
const FAILED_FOR_MS = 60_000;
const LIST_TIMEOUT_MS = 10_000;

const GeminiModels = z.object({
  models: z.array(z.object({ name: z.string(), supportedGenerationMethods: z.array(z.string()).optional() })).default([]),
});
const DataModels = z.object({ data: z.array(z.object({ id: z.string() })).default([]) });

export interface ModelListing {
  models: string[];
  /** Why the endpoint's list could not be read (the default model stands in). */
  error?: string;
}

/** The request that lists `spec`'s models, and how its answer reads. */
function listRequest(spec: ProviderSpec): { url: string; headers: Record<string, string>; read: (body: unknown) => string[] } {
  const base = (spec.baseUrl ?? defaultBase(spec.kind)).replace(/\/+$/, "");
  const key = spec.apiKey ?? "";
  switch (spec.kind) {
    case "gemini":
      return {
        url: `${base}/v1beta/models?pageSize=1000`,
        headers: { "x-goog-api-key": key },
        read: (body) =>
          GeminiModels.parse(body)
            .models.filter((m) => !m.supportedGenerationMethods || m.supportedGenerationMethods.includes("generateContent"))
            .map((m) => m.name.replace(/^models\//, "")),
      };
    case "openai":
      return { url: `${base}/models`, headers: key ? { authorization: `Bearer ${key}` } : {}, read: (body) => DataModels.parse(body).data.map((m) => m.id) };
    case "anthropic":
      return {
        url: `${base}/v1/models?limit=1000`,
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
        read: (body) => DataModels.parse(body).data.map((m) => m.id),
      };
  }
}

function defaultBase(kind: ProviderSpec["kind"]): string {
  if (kind === "gemini") return "https://generativelanguage.googleapis.com";
  if (kind === "anthropic") return "https://api.anthropic.com";
  return "https://api.openai.com/v1";
}

/** Reads a provider's model list from its endpoint; never throws (the error is in the result). */
export async function fetchModelList(spec: ProviderSpec, fetcher: typeof fetch = fetch): Promise<ModelListing> {
  const request = listRequest(spec);
  try {
    const response = await fetcher(request.url, { headers: request.headers, signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      return { models: [], error: `the models endpoint answered ${response.status}` };
    }
    const models = [...new Set(request.read(await response.json()))].sort();
    return { models };
  } catch (error) {
    // The key is never in these messages: only our own text and the fetch's reason.
    return {
      models: [],
      error: error instanceof z.ZodError ? "the models endpoint answered in an unknown shape" : `could not list models: ${errorText(error)}`,
    };
  }
}

/** Listings per endpoint and key, for this isolate. */
export class ModelLister {
  private readonly cache = new Map<string, { at: number; listing: Promise<ModelListing> }>();

  constructor(
    private readonly fetcher: typeof fetch = (input, init) => fetch(input, init),
    private readonly now: () => number = Date.now,
  ) {}

  /** The pinned models, or the listed ones (the default model when listing fails or lists nothing). */
  async models(spec: ProviderSpec, fetcher: typeof fetch = this.fetcher): Promise<ModelListing> {
    if (spec.models) return { models: spec.models };
    // In memory only: the key is part of the cache key so two users' same-named providers never share a list.
    const key = JSON.stringify([spec.kind, spec.baseUrl ?? "", spec.apiKey ?? ""]);
    const cached = this.cache.get(key);
    if (cached && this.now() - cached.at < (await cached.listing.then((l) => (l.error ? FAILED_FOR_MS : LISTED_FOR_MS)))) return cached.listing;
    const listing = fetchModelList(spec, fetcher).then((l) =>
      l.models.length > 0 ? l : { models: [spec.defaultModel], error: l.error ?? "it listed no models" },
    );
    this.cache.set(key, { at: this.now(), listing });
    if (this.cache.size > 200) this.cache.delete(this.cache.keys().next().value ?? key);
    return listing;
  }
}
