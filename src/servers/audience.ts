// Who gets a deployment server (mcp.json) in a multi-user deployment. A stdio server runs
// on the machine of whoever runs the bridge: it reaches only the users its entry names
// (`"users": [...]`), and nobody when it names none, which the session shows as the
// reason it is unavailable (fail closed). A remote server reaches everyone, each user
// signing in with their own OAuth, unless it names users. AUTH_MODE=none (one person on
// loopback) is unchanged: everything is theirs.
import type { AuthMode } from "../config/auth";
import type { ServerConfig } from "../shared/mcp-config/config";

export interface Audience {
  mode: AuthMode | "misconfigured";
  /** The user as the deployment knows them: the stable id (`token:alice`, `access:…`) and the display name (email, token name). */
  user?: { id: string; name?: string };
}

export type AudienceVerdict = { ok: true } | { ok: false; hidden: boolean; reason: string };

export const NO_USERS_REASON =
  'it runs on the deployment\'s machine and mcp.json names no "users" for it (a stdio server reaches only the users its entry names)';

/** Whether `user` names this user: their email or token name (any case), or their id. */
function names(users: readonly string[], user: Audience["user"]): boolean {
  if (!user) return false;
  const wanted = users.map((u) => u.trim().toLowerCase());
  return wanted.includes(user.id.toLowerCase()) || (user.name !== undefined && wanted.includes(user.name.toLowerCase()));
}

/**
 * `hidden`: a server that names other users is not this user's to see at all; one that
 * names nobody is shown as unavailable, saying why, so its operator can tell.
 */
export function audienceVerdict(server: Pick<ServerConfig, "transport" | "users">, audience: Audience): AudienceVerdict {
  if (audience.mode === "none") return { ok: true };
  if (server.users) return names(server.users, audience.user) ? { ok: true } : { ok: false, hidden: true, reason: "it is for other users" };
  if (server.transport === "stdio") return { ok: false, hidden: false, reason: NO_USERS_REASON };
  return { ok: true };
}
