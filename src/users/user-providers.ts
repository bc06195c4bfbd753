// Model providers a user adds with their own key (kept in their UserAccount, in SQLite):
// the same kinds as the deployment's MODEL_PROVIDERS (src/llm/provider-config.ts), with
// the key itself in place of the name of a variable. The key is write-only: the API shows
// it masked, a masked value sent back keeps the stored one only while the kind and base
// URL stay as saved, and it leaves the account only for the Worker's own use (a session's
// model, the route that tests a provider) at that address.
// Turns on a user's own key do not count against the deployment's daily token budget.
import { z } from "zod";
import { entryProblem, MODEL_NAME, PROVIDER_ID, PROVIDER_KINDS, toSpec, type ProviderSpec } from "../llm/provider-config";
import type { FieldIssue } from "../shared/errors";
import { EntryTable } from "./entry-table";

export const KEY_MASK = "••••••";
/** The prefix of a user's provider ids in a session's choice: `user:{id}`, never a deployment id. */
export const USER_PROVIDER_PREFIX = "user:";
const MAX_PROVIDERS = 20;

const modelName = z.string().regex(MODEL_NAME, "a model name (letters, digits and . _ : / @ + -)");

/** What the API accepts for a provider of the user's own. */
export const UserProviderInputSchema = z.strictObject({
  id: z.string().regex(PROVIDER_ID, "use 1-32 lower-case letters, digits, _ or -, starting with a letter or digit"),
  kind: z.enum(PROVIDER_KINDS),
  label: z.string().trim().min(1).max(64).optional(),
  baseUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  /** The key, or the mask to keep the stored one. */
  apiKey: z.string().min(1).max(4096).optional(),
  models: z.array(modelName).min(1).max(200).optional(),
  defaultModel: modelName.optional(),
  toolMode: z.enum(["native", "prompted"]).optional(),
});
export type UserProviderInput = z.infer<typeof UserProviderInputSchema>;
/** As stored: the input with the real key. */
export type StoredUserProvider = UserProviderInput;

export type ValidatedProvider = { ok: true; provider: StoredUserProvider } | { ok: false; issues: FieldIssue[]; code?: "secret_required" };

/** The message a masked key gets when the address it would go to is not the one it was saved with. */
export const KEY_BOUND = "the saved key goes only to the address and kind it was saved with: enter the key again to change the base URL or kind";

/**
 * Checks an entry; `previous` supplies the key a masked value keeps, and only while the
 * entry still sends it where it was saved for (same kind, same base URL): otherwise a
 * moment in the owner's session, or a script in the page, could point the stored key at
 * any address and read it there.
 */
export function validateUserProvider(input: UserProviderInput, previous?: StoredUserProvider): ValidatedProvider {
  const apiKey = input.apiKey === KEY_MASK ? previous?.apiKey : input.apiKey;
  if (input.apiKey === KEY_MASK && apiKey === undefined) return { ok: false, issues: [{ path: "apiKey", message: "no stored key to keep: enter the key" }] };
  if (input.apiKey === KEY_MASK && previous && (input.kind !== previous.kind || (input.baseUrl ?? "") !== (previous.baseUrl ?? ""))) {
    const path = input.kind !== previous.kind ? "kind" : "baseUrl";
    return {
      ok: false,
      code: "secret_required",
      issues: [
        { path: "apiKey", message: KEY_BOUND },
        { path, message: "changed: the saved key does not follow it" },
      ],
    };
  }
  const provider: StoredUserProvider = { ...input, ...(apiKey === undefined ? {} : { apiKey }) };
  if (apiKey === undefined) delete provider.apiKey;
  const problem = entryProblem(provider, apiKey !== undefined);
  if (problem) {
    const [field = "", ...rest] = problem.split(": ");
    return { ok: false, issues: [{ path: field === "apiKeyVar" ? "apiKey" : field, message: rest.join(": ") }] };
  }
  return { ok: true, provider };
}

/** The entry as the API shows it: the key masked (its presence only). */
export function maskedProvider(provider: StoredUserProvider): StoredUserProvider {
  return { ...provider, ...(provider.apiKey === undefined ? {} : { apiKey: KEY_MASK }) };
}

/** The user's providers as the model registry takes them: ids `user:{id}`, spending on the user's key. */
export function ownProviderSpecs(providers: readonly StoredUserProvider[]): ProviderSpec[] {
  return providers.map(({ id, apiKey, ...entry }) => {
    const spec = toSpec(`${USER_PROVIDER_PREFIX}${id}`, entry, apiKey, "user");
    return { ...spec, label: entry.label ?? id };
  });
}

/** The account's table of providers (one row per provider, the entry as JSON). */
export class ModelProviderStore {
  private readonly table: EntryTable<typeof UserProviderInputSchema>;

  constructor(sql: SqlStorage) {
    this.table = new EntryTable(sql, "model_providers", "id", UserProviderInputSchema);
  }

  list(): StoredUserProvider[] {
    return this.table.list();
  }

  get(id: string): StoredUserProvider | undefined {
    return this.list().find((p) => p.id === id);
  }

  /** Adds (`create`) or replaces a provider. */
  put(provider: StoredUserProvider, create: boolean): { ok: true } | { ok: false; code: "duplicate_name" | "not_found" | "too_many" } {
    const existing = this.get(provider.id);
    if (create && existing) return { ok: false, code: "duplicate_name" };
    if (!create && !existing) return { ok: false, code: "not_found" };
    if (create && this.list().length >= MAX_PROVIDERS) return { ok: false, code: "too_many" };
    this.table.put(provider.id, provider);
    return { ok: true };
  }

  delete(id: string): boolean {
    return this.table.delete(id);
  }

  clear(): void {
    this.table.clear();
  }
}
