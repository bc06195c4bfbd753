// Requests to the Worker under test (SELF, real workerd) as a signed-in API client.
import { SELF } from "cloudflare:test";
import { authHeaders, type TestUser } from "./test-users";

export const WORKER_ORIGIN = "http://edgehost.test";

export function workerFetch(path: string, init: RequestInit = {}, user: TestUser = "alice"): Promise<Response> {
  return SELF.fetch(`${WORKER_ORIGIN}${path}`, { ...init, headers: authHeaders(user, init.headers) });
}
