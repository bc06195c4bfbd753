// A user's servers by name, for the routes that act on one (OAuth sign-in) or must not
// clash with one (My servers): the same sources and rules a session uses.
import type { Env } from "../config/env";
import { runtimeConfig } from "../config/runtime-config";
import { isBridged } from "../mcp/bridge-routing";
import type { RemoteServerConfig } from "../shared/mcp-config/config";
import { userAccount } from "../users/account";
import { validateUserServer } from "../users/user-servers";
import { audienceVerdict, type Audience } from "./audience";
import { deploymentServersFor } from "./deployment";
import { loadSessionMcpConfig } from "./mcp-json";

/** The user's remote server by name: one they added, or one of mcp.json's meant for them (never a bridged stdio one). */
export async function remoteServerFor(env: Env, audience: Audience & { user: { id: string } }, name: string): Promise<RemoteServerConfig | undefined> {
  const stored = await userAccount(env, audience.user.id).getServer(name);
  if (stored) {
    const validated = validateUserServer(stored);
    return validated.ok ? validated.config : undefined;
  }
  const settings = runtimeConfig(env).settings;
  const server = loadSessionMcpConfig(env, settings).config.servers.find((s) => s.name === name);
  if (!server || server.transport === "stdio" || isBridged(server.url, settings.BRIDGE_URL)) return undefined;
  return audienceVerdict(server, audience).ok ? server : undefined;
}

/** mcp.json's server names, which a user's own server may not take (parsed once per environment). */
export function deploymentNames(env: Env): string[] {
  const base = loadSessionMcpConfig(env, runtimeConfig(env).settings);
  return [...base.config.servers.map((s) => s.name), ...base.unreachable.map((u) => u.server)];
}

/**
 * mcp.json's server names as `audience`'s sessions list them (deployment.ts): those they
 * get, and those shown unavailable saying why; never those meant for other users.
 */
export function deploymentNamesFor(env: Env, audience: Audience): string[] {
  const settings = runtimeConfig(env).settings;
  const mine = deploymentServersFor(loadSessionMcpConfig(env, settings), audience, settings.BRIDGE_URL);
  return [...mine.config.servers.map((s) => s.name), ...mine.unreachable.map((u) => u.server)];
}
