// The OAuth client's storage port (src/mcp/oauth/provider.ts) over the user's
// UserAccount Durable Object: each read and write is one RPC to the object that
// owns the user's tokens, so every session of the user sees the same tokens.
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import type { Env } from "../config/env";
import { machineOAuthProvider } from "../mcp/oauth/machine-client";
import { EdgeOAuthProvider, type OAuthRecord, type OAuthStorage } from "../mcp/oauth/provider";
import type { RemoteServerConfig } from "../shared/mcp-config/config";
import { userAccount } from "./account";

/** The stored record. (RPC's serializable type cannot express the SDK's metadata types: it is the record the store wrote.) */
export async function loadOAuthRecord(env: Pick<Env, "USER_ACCOUNT">, userId: string, server: string): Promise<OAuthRecord | undefined> {
  return (await userAccount(env, userId).oauthLoad(server)) as OAuthRecord | undefined;
}

/** Signing out or removing a server: the record, its tokens forgotten in the same call (see UserAccount.oauthTake). */
export async function takeOAuthRecord(env: Pick<Env, "USER_ACCOUNT">, userId: string, server: string): Promise<OAuthRecord | undefined> {
  return (await userAccount(env, userId).oauthTake(server)) as OAuthRecord | undefined;
}

export function accountOAuthStorage(env: Pick<Env, "USER_ACCOUNT">, userId: string, server: RemoteServerConfig): OAuthStorage {
  const account = userAccount(env, userId);
  return {
    load: () => loadOAuthRecord(env, userId, server.name),
    save: async (patch) => {
      await account.oauthSave(server.name, { ...patch, serverUrl: server.url });
    },
  };
}

/** The provider a session's connection to `server` uses, or undefined when the server is not one to sign in to. */
export function sessionOAuthProvider(
  env: Pick<Env, "USER_ACCOUNT">,
  userId: string,
  server: RemoteServerConfig,
  /** The fetch its token refreshes go through. */
  fetchImpl?: typeof fetch,
): OAuthClientProvider | undefined {
  // A server given its own Authorization header (a personal token in mcp.json) is not signed in to.
  if (Object.keys(server.headers).some((name) => name.toLowerCase() === "authorization")) return undefined;
  // A server the deployment signs in to with its own client credentials: the same token for every user, none stored per user.
  const machine = machineOAuthProvider(server);
  if (machine) return machine;
  return new EdgeOAuthProvider({
    server: server.name,
    serverUrl: server.url,
    storage: accountOAuthStorage(env, userId, server),
    preRegistered: server.oauth,
    mode: { kind: "session" },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
