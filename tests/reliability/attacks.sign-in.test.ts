// Issue 20's three holes, played as the outsider (and the careless insider) against
// the real Worker under `wrangler dev` in AUTH_MODE=token with two users: guessing
// tokens at full speed on the login form and as bearer tokens, replaying a login
// cookie after "Sign out" and "Sign out everywhere", and one user creating sessions
// without end. Each attacker comes from an address of its own (CF-Connecting-IP),
// so the throttle of one test does not decide another's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw, tryUpgrade, type RawResponse } from "../fixtures/raw-http";
import { startStack, type Stack } from "../fixtures/stack";
import { attackCase } from "./record";

const ALICE = "alice-sign-in-token-0123456789abcd";
const BOB = "bob-sign-in-token-0123456789abcdef";
/** The stack's cap, small so the flood reaches it quickly. */
const MAX_SESSIONS = 25;
/** The default failure burst (SIGN_IN_FAILURE_BURST). */
const BURST = 10;
const json = { "content-type": "application/json" };

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    model: false,
    vars: { AUTH_MODE: "token", ACCESS_TOKENS: `alice:${ALICE},bob:${BOB}`, MAX_SESSIONS_PER_USER: String(MAX_SESSIONS) },
  });
});
afterAll(async () => {
  await stack?.stop();
});

const from = (address: string, headers: Record<string, string> = {}) => ({ "cf-connecting-ip": address, ...headers });
const login = (address: string, token: string) =>
  raw(stack.url, "/auth/login", { method: "POST", headers: from(address, json), body: JSON.stringify({ token }) });
const wrongToken = (i: number) => `wrong-${i}-${crypto.randomUUID()}`;

/** `count` requests, `inFlight` at a time, in order of sending; and the rate they went at. */
async function flood(count: number, inFlight: number, send: (i: number) => Promise<RawResponse>): Promise<{ answers: RawResponse[]; perSecond: number }> {
  const answers: RawResponse[] = new Array(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const i = next++;
        answers[i] = await send(i);
      }
    }),
  );
  return { answers, perSecond: Math.round((count * 1000) / (performance.now() - started)) };
}

/** The guesses were throttled: at most the burst answered 401, every other one 429 with Retry-After and a typed body. */
function expectThrottled(answers: RawResponse[]): { refused: number; throttled: number; retryAfter: string } {
  const statuses = answers.map((a) => a.status);
  const refused = statuses.filter((s) => s === 401).length;
  const throttled = answers.filter((a) => a.status === 429);
  expect(refused + throttled.length).toBe(answers.length);
  expect(refused).toBeLessThanOrEqual(BURST);
  // Sent 4 at a time, answers can reach the throttle a little out of order: past the first few in flight, all are 429.
  expect(statuses.slice(2 * BURST)).toEqual(statuses.slice(2 * BURST).map(() => 429));
  for (const answer of throttled) {
    expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
    expect(answer.json().error).toMatchObject({ code: "sign_in_throttled" });
  }
  return { refused, throttled: throttled.length, retryAfter: String(throttled[0]?.headers["retry-after"]) };
}

describe("sign-in guessing (AUTH_MODE=token)", () => {
  it(
    "throttles wrong tokens on the login form per address, and keeps the right token from that address out while throttled",
    attackCase(
      "Token guessing on the login form",
      "300 wrong tokens POSTed to /auth/login from one address, 4 in flight; then alice's real token from the same address; then a person at another address who mistyped twice",
      async () => {
        const attacker = "203.0.113.7";
        const { answers, perSecond } = await flood(300, 4, (i) => login(attacker, wrongToken(i)));
        const seen = expectThrottled(answers);
        // A lucky guess while throttled is not revealed: the right token gets 429 too.
        const lucky = await login(attacker, ALICE);
        expect(lucky.status).toBe(429);
        expect(lucky.headers["set-cookie"]).toBeUndefined();
        // Someone else, at their own address, mistypes twice and still signs in.
        const person = "198.51.100.23";
        expect([(await login(person, wrongToken(1))).status, (await login(person, wrongToken(2))).status, (await login(person, BOB)).status]).toEqual([
          401, 401, 204,
        ]);
        return {
          tried: 301,
          figure: `300 wrong tokens at ${perSecond}/s: ${seen.refused} × 401, then ${seen.throttled} × 429 (Retry-After ${seen.retryAfter} s); the right token from that address 429; elsewhere 2 typos then 204`,
        };
      },
    ),
  );

  it(
    "throttles wrong bearer tokens on any route per address",
    attackCase(
      "Token guessing as Authorization: Bearer",
      "100 wrong bearer tokens on GET /api/me, /api/sessions and POST /sessions from one address, 4 in flight; then bob's real bearer token from that address and from another",
      async () => {
        const attacker = "203.0.113.99";
        const paths = ["/api/me", "/api/sessions", "/sessions"];
        const { answers, perSecond } = await flood(100, 4, (i) => {
          const path = paths[i % paths.length] ?? "/api/me";
          return raw(stack.url, path, { method: path === "/sessions" ? "POST" : "GET", headers: from(attacker, { authorization: `Bearer ${wrongToken(i)}` }) });
        });
        const seen = expectThrottled(answers);
        expect((await raw(stack.url, "/api/me", { headers: from(attacker, { authorization: `Bearer ${BOB}` }) })).status).toBe(429);
        expect((await raw(stack.url, "/api/me", { headers: from("198.51.100.77", { authorization: `Bearer ${BOB}` }) })).status).toBe(200);
        return {
          tried: 101,
          figure: `100 wrong bearer tokens at ${perSecond}/s: ${seen.refused} × 401, then ${seen.throttled} × 429 (Retry-After ${seen.retryAfter} s); bob's token from there 429, from elsewhere 200`,
        };
      },
    ),
  );
});

describe("signing out (AUTH_MODE=token)", () => {
  const cookieOf = (answer: RawResponse) => String(answer.headers["set-cookie"]).split(";")[0] ?? "";
  /** Every way the page uses a cookie: who am I, the session list, a new session, and the WebSocket upgrade. */
  async function replay(cookie: string, session: string): Promise<number[]> {
    return [
      (await raw(stack.url, "/api/me", { headers: { cookie } })).status,
      (await raw(stack.url, "/api/sessions", { headers: { cookie } })).status,
      (await raw(stack.url, "/sessions", { method: "POST", headers: { cookie, ...json }, body: "{}" })).status,
      (await raw(stack.url, `/sessions/${session}/history`, { headers: { cookie } })).status,
      (await tryUpgrade(stack.url, `/sessions/${session}/ws`, { cookie })).status,
    ];
  }

  it(
    "refuses a login cookie replayed after Sign out, and every cookie after Sign out everywhere",
    attackCase(
      "Login cookie replayed after sign-out",
      "alice signs in on three devices; device 1 signs out and its saved cookie is replayed on /api/me, /api/sessions, POST /sessions, a history and the WebSocket upgrade; device 2 signs out everywhere and the cookies of devices 2 and 3 are replayed the same way",
      async () => {
        const devices = [await login("192.0.2.1", ALICE), await login("192.0.2.2", ALICE), await login("192.0.2.3", ALICE)];
        expect(devices.map((d) => d.status)).toEqual([204, 204, 204]);
        const [one, two, three] = devices.map(cookieOf) as [string, string, string];
        const created = await raw(stack.url, "/sessions", { method: "POST", headers: { cookie: one, ...json }, body: "{}" });
        const session = String(created.json().id);
        expect((await replay(one, session)).filter((s) => s >= 400)).toEqual([]);

        expect((await raw(stack.url, "/auth/logout", { method: "POST", headers: { cookie: one, ...json }, body: "{}" })).status).toBe(204);
        const afterSignOut = await replay(one, session);
        expect(afterSignOut).toEqual([401, 401, 401, 401, 401]);
        // The other devices are still signed in.
        expect((await raw(stack.url, "/api/me", { headers: { cookie: three } })).status).toBe(200);

        const everywhere = await raw(stack.url, "/auth/logout-all", { method: "POST", headers: { cookie: two, ...json }, body: "{}" });
        expect(everywhere.status).toBe(200);
        const afterEverywhere = [...(await replay(two, session)), ...(await replay(three, session))];
        expect(afterEverywhere).toEqual(afterEverywhere.map(() => 401));
        // Signing in again works, and the bearer token was never affected.
        expect((await raw(stack.url, "/api/me", { headers: { cookie: cookieOf(await login("192.0.2.1", ALICE)) } })).status).toBe(200);
        expect((await raw(stack.url, "/api/me", { headers: { authorization: `Bearer ${ALICE}` } })).status).toBe(200);
        const tried = afterSignOut.length + afterEverywhere.length;
        return {
          tried,
          figure: `${tried}/${tried} replays refused with 401 (5 after Sign out, 10 after Sign out everywhere); the other devices kept working until then`,
        };
      },
    ),
  );
});

describe("session flood (one user)", () => {
  it(
    "caps the sessions one user keeps",
    attackCase(
      "Session flood by one user",
      `300 POST /sessions as bob with MAX_SESSIONS_PER_USER=${MAX_SESSIONS}, 4 in flight; then GET /api/sessions; then one deleted and one created`,
      async () => {
        const bearer = { authorization: `Bearer ${BOB}`, ...json };
        const { answers } = await flood(300, 4, () => raw(stack.url, "/sessions", { method: "POST", headers: bearer, body: "{}" }));
        const created = answers.filter((a) => a.status === 201).length;
        const refused = answers.filter((a) => a.status === 429);
        expect(created).toBe(MAX_SESSIONS);
        expect(refused).toHaveLength(300 - MAX_SESSIONS);
        expect(refused[0]?.json().error).toMatchObject({ code: "too_many_sessions" });
        expect(String((refused[0]?.json().error as { message?: string } | undefined)?.message)).toContain("delete");
        const listed = (await raw(stack.url, "/api/sessions", { headers: bearer })).json().sessions as { id: string }[];
        expect(listed).toHaveLength(MAX_SESSIONS);
        // A session opened by its WebSocket with a made-up id is a new session too.
        expect((await tryUpgrade(stack.url, `/sessions/${crypto.randomUUID()}/ws`, { authorization: `Bearer ${BOB}` })).status).toBe(429);
        // Deleting one makes room for one.
        expect((await raw(stack.url, `/sessions/${listed[0]?.id}`, { method: "DELETE", headers: { authorization: `Bearer ${BOB}` } })).status).toBe(204);
        expect((await raw(stack.url, "/sessions", { method: "POST", headers: bearer, body: "{}" })).status).toBe(201);
        return {
          tried: 301,
          figure: `${created} × 201, then ${refused.length} × 429 too_many_sessions; ${listed.length} listed; a made-up id on the WebSocket 429; after one delete, one more 201`,
        };
      },
    ),
  );
});
