// What the session's servers offer the person, from the session's catalog routes:
// resources, resource templates and prompts (kept briefly per session, so typing
// `@` or `/` does not ask again at each key), and completion of one argument.
import { request } from "../core/api.js";

const TTL_MS = 30_000;
const cache = new Map();

/** `kind` is "resources", "resource-templates" or "prompts"; resolves with the list (empty when unreachable). */
export async function loadCatalog(sessionId, kind) {
  const key = `${sessionId}\u0000${kind}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.list;
  const field = kind === "resource-templates" ? "resourceTemplates" : kind;
  const { ok, data } = await request(`/sessions/${encodeURIComponent(sessionId)}/${kind}`);
  const list = ok && Array.isArray(data?.[field]) ? data[field] : [];
  cache.set(key, { at: Date.now(), list });
  return list;
}

/** The server list changed (a server turned on or off): ask again next time. */
export function forgetCatalog() {
  cache.clear();
}

/** Suggestions for one argument of a prompt or a resource template. */
async function completeArgument(sessionId, body) {
  const { ok, data } = await request(`/sessions/${encodeURIComponent(sessionId)}/complete`, { method: "POST", body });
  return ok && Array.isArray(data?.completion?.values) ? data.completion.values : [];
}

/**
 * The argument form's `complete(name, value, context)` for `ref` (a prompt or a resource
 * template) of `server`; null when the server does not offer completion.
 */
export function completer(sessionId, server, ref, offered) {
  return offered ? (name, value, context) => completeArgument(sessionId, { server, ref, argument: { name, value }, context }) : null;
}
