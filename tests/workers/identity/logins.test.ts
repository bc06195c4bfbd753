// Signing out ends the login on the server: the login cookie names a login the
// user's account lists, through the real Worker in workerd. A cookie saved before
// "Sign out" (or "Sign out everywhere") is refused on every route and on the
// WebSocket upgrade; bearer tokens are not logins and keep working.
import { SELF, env } from "cloudflare:test";
import { serializeSigned } from "hono/utils/cookie";
import { describe, expect, inject, it } from "vitest";
import { WORKER_ORIGIN, workerFetch } from "../worker-fetch";

const json = { "content-type": "application/json" };
/** The secret token mode derives when COOKIE_SECRET is unset (src/config/auth.ts). */
const cookieSecret = () => `edgehost-cookie:${(env as unknown as { ACCESS_TOKENS: string }).ACCESS_TOKENS}`;

async function signIn(user: "alice" | "bob" = "alice"): Promise<string> {
  const answer = await SELF.fetch(`${WORKER_ORIGIN}/auth/login`, { method: "POST", headers: json, body: JSON.stringify({ token: inject("testUsers")[user] }) });
  expect(answer.status).toBe(204);
  return (answer.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

const post = (path: string, cookie: string) => SELF.fetch(`${WORKER_ORIGIN}${path}`, { method: "POST", headers: { cookie, ...json }, body: "{}" });

/** Every way the page uses its cookie: who am I, the list, a new session, a history, the socket. */
async function replay(cookie: string, session: string): Promise<number[]> {
  const get = (path: string, headers: Record<string, string> = {}) => SELF.fetch(`${WORKER_ORIGIN}${path}`, { headers: { cookie, ...headers } });
  return [
    (await get("/api/me")).status,
    (await get("/api/sessions")).status,
    (await post("/sessions", cookie)).status,
    (await get(`/sessions/${session}/history`)).status,
    (await get(`/sessions/${session}/ws`, { upgrade: "websocket" })).status,
  ];
}

describe("page logins", () => {
  it("names a login in the cookie, and refuses that cookie everywhere after Sign out", async () => {
    const cookie = await signIn();
    expect(cookie).toMatch(/^edgehost_session=alice%7C\d{10}%7C[A-Za-z0-9_-]{24}\.[^;]+$/);
    const created = await post("/sessions", cookie);
    expect(created.status).toBe(201);
    const session = ((await created.json()) as { id: string }).id;
    const before = await replay(cookie, session);
    expect(before.slice(0, 4)).toEqual([200, 200, 201, 200]);
    expect(before[4]).toBe(101);

    const logout = await post("/auth/logout", cookie);
    expect(logout.status).toBe(204);
    expect(logout.headers.get("set-cookie")).toMatch(/^edgehost_session=;.*Max-Age=0/);
    expect(await replay(cookie, session)).toEqual([401, 401, 401, 401, 401]);
    const refused = (await (await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie } })).json()) as { error: { code: string; message: string } };
    expect(refused.error).toEqual({ code: "unauthenticated", message: "this sign-in has ended (signed out): sign in again", authMode: "token" });
  });

  it("signs out one device without ending the others", async () => {
    const [laptop, phone] = [await signIn(), await signIn()];
    expect((await post("/auth/logout", laptop)).status).toBe(204);
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie: laptop } })).status).toBe(401);
    expect(await (await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie: phone } })).json()).toEqual({
      user: { id: "token:alice", name: "alice" },
      authMode: "token",
    });
  });

  it("signs out every device of the user at once, and no one else's", async () => {
    const devices = [await signIn(), await signIn(), await signIn()];
    const bobs = await signIn("bob");
    const created = await post("/sessions", devices[0] ?? "");
    const session = ((await created.json()) as { id: string }).id;
    const everywhere = await post("/auth/logout-all", devices[1] ?? "");
    expect(everywhere.status).toBe(200);
    expect(((await everywhere.json()) as { ended: number }).ended).toBeGreaterThanOrEqual(3);
    expect(everywhere.headers.get("set-cookie")).toMatch(/^edgehost_session=;.*Max-Age=0/);
    for (const cookie of devices) expect(await replay(cookie, session)).toEqual([401, 401, 401, 401, 401]);
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie: bobs } })).status).toBe(200);
    // The bearer token is not a login: it still works, and a new login does too.
    expect((await workerFetch("/api/me")).status).toBe(200);
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie: await signIn() } })).status).toBe(200);
  });

  it("lets an API client end every page login with its bearer token, and refuses a signed-out caller", async () => {
    const cookie = await signIn("bob");
    const everywhere = await workerFetch("/auth/logout-all", { method: "POST", headers: json, body: "{}" }, "bob");
    expect(everywhere.status).toBe(200);
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie } })).status).toBe(401);
    const signedOut = await SELF.fetch(`${WORKER_ORIGIN}/auth/logout-all`, { method: "POST", headers: json, body: "{}" });
    expect(signedOut.status).toBe(401);
  });

  it("refuses a validly signed cookie without a login id (the format before logins had ids) or with one never listed", async () => {
    const [value = ""] = decodeURIComponent((await signIn()).slice("edgehost_session=".length)).split(".");
    const [name, expires, loginId] = value.split("|");
    const signed = async (v: string) => (await serializeSigned("edgehost_session", v, cookieSecret())).split(";")[0] ?? "";
    // Signed with the right secret: re-signing the issued value is accepted.
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie: await signed(`${name}|${expires}|${loginId}`) } })).status).toBe(200);
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie: await signed(`${name}|${expires}`) } })).status).toBe(401);
    // A login id the account never listed gains nothing.
    expect((await SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { cookie: await signed(`${name}|${expires}|${"a".repeat(24)}`) } })).status).toBe(401);
  });
});
