// Trying a user's server before it is saved (My servers' add, edit and test): initialize
// and tools/list from the Worker, with the user's OAuth tokens if they signed in to it,
// then close. A server that wants a sign-in is reported as such, not as broken.
import type { Env } from "../config/env";
import { McpHost } from "../mcp/host";
import { refusingChatHandlers } from "../mcp/server-requests";
import { challengeRecordingFetch } from "../mcp/oauth/challenge-fetch";
import { type TransportKind, workerTransports } from "../mcp/transports";
import { errorMessage } from "../shared/logger";
import type { RemoteServerConfig } from "../shared/mcp-config/config";
import { accountOAuthStorage, sessionOAuthProvider } from "../users/oauth-client-storage";

const TEST_TIMEOUT_MS = 10_000;

export type ServerTest =
  | { ok: true; toolCount: number; tools: string[] }
  | { ok: false; code: "unreachable" | "auth_required" | "oauth_unsupported"; error: string; tried?: TransportKind[] };

const TRANSPORT_NAMES: Partial<Record<TransportKind, string>> = { "streamable-http": "Streamable HTTP", sse: "the older HTTP+SSE transport" };

/**
 * What a person reads when a server did not answer: the host and the transports tried,
 * then what to check. "From the Worker" matters: a deployed Worker runs on Cloudflare's
 * network, so a server only your computer reaches (a LAN address, a VPN) fails there.
 * The transport's own reason is kept short and last; no internal detail is added.
 */
export function unreachableMessage(url: string, test: { error: string; tried?: TransportKind[] }, deployed: boolean): { message: string; field: string } {
  const host = new URL(url).host;
  const tried = (test.tried ?? []).map((kind) => TRANSPORT_NAMES[kind] ?? kind);
  // The SDK's era probe (which MCP version the server speaks) is the first request: its failure says so.
  const probe = /^Version negotiation probe failed: /i;
  const reason = test.error.replace(probe, "").replace(/\.$/, "").slice(0, 200);
  const how = tried.length > 0 ? ` over ${tried.join(", then ")}${probe.test(test.error) ? ", asking which MCP version it speaks" : ""}` : "";
  const where = deployed
    ? `that ${host} is reachable from the internet, where the Worker runs (not only from your computer)`
    : `that the server is running and ${host} is reachable from this computer`;
  return {
    message: `could not reach ${host} from the Worker${how} (${reason}). Check the URL, ${where}, and any header the server needs to sign you in`,
    field: `no answer from ${host}${how}: ${reason}`,
  };
}

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
  // The transports the connect tried, in order, for the message when none answered.
  const tried: TransportKind[] = [];
  const transports = workerTransports({ auth, fetch: outbound, fetchFor: (server) => (auth(server) ? recordChallenge : undefined) });
  const host = new McpHost({
    transports: (server) =>
      transports(server).map((candidate) => ({
        kind: candidate.kind,
        create: (hooks) => {
          tried.push(candidate.kind);
          return candidate.create(hooks);
        },
      })),
    connectTimeoutMs: Math.min(connectTimeoutMs, TEST_TIMEOUT_MS),
    retry: { initialMs: 0, maxMs: 0, tries: 1 },
  });
  // Declared as a chat declares them, so the count here is the count a chat shows.
  host.onServerRequest(refusingChatHandlers());
  try {
    const report = await host.connect({ servers: [config] });
    const failed = report.failed[0];
    if (failed) {
      // A server that wants a sign-in is not a broken one: the OAuth client says so by the state; without
      // one (a server given its own Authorization header) the transport names the 401.
      const state = host.servers()[0]?.state;
      if (state === "auth_required" || /\b401\b|unauthori[sz]ed/i.test(failed.reason)) return { ok: false, code: "auth_required", error: failed.reason };
      if (failed.code === "oauth_unsupported") return { ok: false, code: "oauth_unsupported", error: failed.reason };
      return { ok: false, code: "unreachable", error: failed.reason, tried: [...new Set(tried)] };
    }
    const tools = host.tools().map((t) => t.name);
    return { ok: true, toolCount: tools.length, tools };
  } catch (error) {
    return { ok: false, code: "unreachable", error: errorMessage(error), tried: [...new Set(tried)] };
  } finally {
    await host.close().catch(() => undefined);
  }
}
