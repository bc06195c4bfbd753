// Trying a user's server before it is saved (My servers' add, edit and test): initialize
// and tools/list from the Worker, with the user's OAuth tokens if they signed in to it,
// then close. A server that wants a sign-in is reported as such, not as broken.
import type { Env } from "../config/env";
import { McpHost } from "../mcp/host";
import { challengeRecordingFetch } from "../mcp/oauth/challenge-fetch";
import { workerTransports } from "../mcp/transports";
import { errorMessage } from "../shared/logger";
import type { RemoteServerConfig } from "../shared/mcp-config/config";
import { accountOAuthStorage, sessionOAuthProvider } from "../users/oauth-client-storage";

const TEST_TIMEOUT_MS = 10_000;

export type ServerTest =
  | { ok: true; toolCount: number; tools: string[] }
  | { ok: false; code: "unreachable" | "auth_required" | "oauth_unsupported"; error: string };

/** initialize + tools/list against the server, from the Worker, then close. */
export async function testServer(
  user: { env: Pick<Env, "USER_ACCOUNT">; userId: string },
  config: RemoteServerConfig,
  connectTimeoutMs: number,
  /** The fetch every request goes through (the caller's guarded one: src/servers/guarded-fetch.ts). */
  outbound?: typeof fetch,
): Promise<ServerTest> {
  // With the user's OAuth tokens, if they signed in to it: a signed-in server tests as it serves.
  const auth = (server: RemoteServerConfig) => sessionOAuthProvider(user.env, user.userId, server, outbound);
  // A challenge the server sends only after initialize is kept for the user's sign-in, as a session's is.
  const recordChallenge = challengeRecordingFetch((challenge) => accountOAuthStorage(user.env, user.userId, config).save({ challenge }), outbound);
  const host = new McpHost({
    transports: workerTransports({ auth, fetch: outbound, fetchFor: (server) => (auth(server) ? recordChallenge : undefined) }),
    connectTimeoutMs: Math.min(connectTimeoutMs, TEST_TIMEOUT_MS),
    retry: { initialMs: 0, maxMs: 0, tries: 1 },
  });
  try {
    const report = await host.connect({ servers: [config] });
    const failed = report.failed[0];
    if (failed) {
      // A server that wants a sign-in is not a broken one: the OAuth client says so by the state; without
      // one (a server given its own Authorization header) the transport names the 401.
      const state = host.servers()[0]?.state;
      if (state === "auth_required" || /\b401\b|unauthori[sz]ed/i.test(failed.reason)) return { ok: false, code: "auth_required", error: failed.reason };
      if (failed.code === "oauth_unsupported") return { ok: false, code: "oauth_unsupported", error: failed.reason };
      return { ok: false, code: "unreachable", error: failed.reason };
    }
    const tools = host.tools().map((t) => t.name);
    return { ok: true, toolCount: tools.length, tools };
  } catch (error) {
    return { ok: false, code: "unreachable", error: errorMessage(error) };
  } finally {
    await host.close().catch(() => undefined);
  }
}
