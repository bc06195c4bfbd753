// A connected app's lifecycle across its three keepers: the person's account (the list the
// page shows), the app's own object (which refuses a token the moment its generation is
// gone) and the provider's grants in KV (eventually consistent, so never what makes a
// Disconnect immediate: the object is).
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Env } from "../config/env";
import { userAccount } from "../users/account";
import type { AppConnection, ConnectedApp } from "../users/connected-apps";
import type { AppActivation, GatewayApp } from "./GatewayApp";
import { oauthHelpers } from "./auth-server";
import { providerUserId } from "./props";

export function gatewayApp(env: Pick<Env, "GATEWAY_APP">, appId: string): DurableObjectStub<GatewayApp> {
  return env.GATEWAY_APP.get(env.GATEWAY_APP.idFromName(appId)) as DurableObjectStub<GatewayApp>;
}

/**
 * Consent approved: the account lists the app under a fresh generation, then the object starts
 * honouring it. The generation, or undefined when the person keeps too many apps already.
 */
export async function connectApp(env: Env, owner: AppActivation["owner"], app: AppConnection): Promise<number | undefined> {
  const connected = await userAccount(env, owner.id).connectApp(app);
  if (!connected.ok) return undefined;
  await refreshApp(env, owner, { ...app, gen: connected.gen });
  return connected.gen;
}

/** The object takes the account's record of the app (its generation, client, sampling permission). */
export async function refreshApp(env: Env, owner: AppActivation["owner"], app: AppConnection & Pick<ConnectedApp, "gen">): Promise<void> {
  await gatewayApp(env, app.appId).activate({
    owner,
    gen: app.gen,
    client: { id: app.clientId, name: app.clientName, redirectHost: app.redirectHost },
    samplingAllowed: app.sampling,
  });
}

/** Every grant the provider keeps for this person's app (one per consent; the provider replaces older ones itself). */
async function revokeGrants(helpers: OAuthHelpers, identityId: string, appIds: Set<string>): Promise<number> {
  const userId = await providerUserId(identityId);
  let cursor: string | undefined;
  let revoked = 0;
  do {
    const page = await helpers.listUserGrants(userId, { limit: 1000, cursor });
    for (const grant of page.items) {
      const appId = (grant.metadata as { appId?: unknown } | null)?.appId;
      if (typeof appId === "string" && appIds.has(appId)) {
        await helpers.revokeGrant(grant.id, userId);
        revoked++;
      }
    }
    cursor = page.cursor;
  } while (cursor);
  return revoked;
}

/**
 * Disconnect (the account already removed the apps from its list): each object refuses its
 * tokens from the next request on, then the grants and their tokens are deleted from KV.
 */
export async function disconnectApps(env: Env, origin: string, identityId: string, appIds: string[]): Promise<void> {
  if (appIds.length === 0) return;
  await Promise.all(appIds.map((appId) => gatewayApp(env, appId).disconnect()));
  if (env.OAUTH_KV) await revokeGrants(oauthHelpers(env, origin), identityId, new Set(appIds));
}
