// The setup the gateway tests share: the Worker as a test user calls it, and alice's own v2
// fixture server (My servers) for the length of one test file, the server her connected
// apps' calls reach (a fresh name each file, so no other file's state counts it).
import { SELF } from "cloudflare:test";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { authHeaders, type TestUser } from "../test-users";

export const json = { "content-type": "application/json" };

/** A request to the Worker as `user` (alice unless told), through its whole stack. */
export const api = (path: string, init: RequestInit = {}, user: TestUser = "alice") =>
  SELF.fetch(`https://edgehost.test${path}`, { ...init, headers: authHeaders(user, init.headers) });

/** Adds alice's server (named `prefix` and six random characters) before the file's tests and removes it after them; its name. */
export function aliceV2Server(prefix: string): string {
  const name = `${prefix}${crypto.randomUUID().slice(0, 6)}`;
  beforeAll(async () => {
    const added = await api("/api/my-servers", { method: "POST", headers: json, body: JSON.stringify({ name, url: inject("v2BothUrl") }) });
    expect(added.status).toBe(201);
  });
  afterAll(async () => {
    await api(`/api/my-servers/${name}`, { method: "DELETE" });
  });
  return name;
}
