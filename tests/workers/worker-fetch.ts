// Requests to the Worker under test (SELF, real workerd) as a signed-in API client,
// and session sockets opened the same way.
import { SELF } from "cloudflare:test";
import type { SessionClient } from "../fixtures/session-client";
import { acceptSession } from "../fixtures/session-client-workerd";
import { authHeaders, type TestUser } from "./test-users";

export const WORKER_ORIGIN = "http://edgehost.test";

export function workerFetch(path: string, init: RequestInit = {}, user: TestUser = "alice"): Promise<Response> {
  return SELF.fetch(`${WORKER_ORIGIN}${path}`, { ...init, headers: authHeaders(user, init.headers) });
}

/** The socket of session `sessionId` as `user`; resolves once its history arrived. */
export async function openSession(sessionId: string, user: TestUser = "alice"): Promise<SessionClient> {
  return acceptSession(await workerFetch(`/sessions/${sessionId}/ws`, { headers: { Upgrade: "websocket" } }, user), sessionId);
}
