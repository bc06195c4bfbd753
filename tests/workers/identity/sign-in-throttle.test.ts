// Guessing tokens is throttled per client address, durably: failed sign-ins on the
// login form and as bearer tokens are counted in the address's SignInThrottle
// object, through the real Worker in workerd. Each test comes from addresses of its
// own (CF-Connecting-IP), so no test inherits another's failures.
import { abortAllDurableObjects, env, SELF } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { clientAddress } from "../../../src/identity/sign-in-throttle";
import type { SignInThrottle } from "../../../src/identity/SignInThrottle";
import { WORKER_ORIGIN } from "../worker-fetch";

const bindings = env as unknown as Env;
/** The defaults (SIGN_IN_FAILURE_BURST, SIGN_IN_FAILURES_PER_HOUR). */
const BURST = 10;
const LIMITS = { burst: BURST, perMinute: 30 / 60 };

/**
 * An address no other call here (or elsewhere in the run) has used: a counter in this file,
 * under a prefix drawn once for it. A random one of 250 collided now and then with another
 * test's, which then started throttled (its earlier failures counted).
 */
const prefix = `100.${64 + Math.floor(Math.random() * 64)}.${Math.floor(Math.random() * 256)}`;
let addresses = 0;
const address = () => `${prefix}.${++addresses}`;
const login = (from: string, token: string) =>
  SELF.fetch(`${WORKER_ORIGIN}/auth/login`, {
    method: "POST",
    headers: { "cf-connecting-ip": from, "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
const me = (from: string, token: string) => SELF.fetch(`${WORKER_ORIGIN}/api/me`, { headers: { "cf-connecting-ip": from, authorization: `Bearer ${token}` } });
const throttleOf = (key: string) => {
  const namespace = bindings.SIGN_IN_THROTTLE as unknown as DurableObjectNamespace<SignInThrottle>;
  return namespace.get(namespace.idFromName(key));
};

async function statuses(responses: Promise<Response>[]): Promise<number[]> {
  return Promise.all(responses.map(async (r) => (await r).status));
}

describe("sign-in throttle", () => {
  it("lets a person who mistyped twice sign in", async () => {
    const from = address();
    const answers = [await login(from, "typo-one-0123456789"), await login(from, "typo-two-0123456789"), await login(from, inject("testUsers").alice)];
    expect(answers.map((a) => a.status)).toEqual([401, 401, 204]);
    expect(answers[2]?.headers.get("set-cookie")).toMatch(/^edgehost_session=alice%7C/);
  });

  it("answers 429 with Retry-After after the burst of wrong tokens on the login form, for the right token too", async () => {
    const from = address();
    const wrong: number[] = [];
    for (let i = 0; i < BURST; i++) wrong.push((await login(from, `wrong-${i}-${crypto.randomUUID()}`)).status);
    expect(wrong).toEqual(wrong.map(() => 401));
    const throttled = await login(from, `wrong-${crypto.randomUUID()}`);
    expect(throttled.status).toBe(429);
    // One failure comes back every 2 minutes (30 an hour).
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(60);
    expect(Number(throttled.headers.get("retry-after"))).toBeLessThanOrEqual(120);
    const body = (await throttled.json()) as { error: { code: string; message: string; retryAfterMs: number } };
    expect(body.error).toMatchObject({
      code: "sign_in_throttled",
      message: expect.stringMatching(/^Too many failed sign-ins from your address: try again in \d+ s\.$/),
    });
    // A lucky guess is not revealed while throttled, and no cookie is made.
    const right = await login(from, inject("testUsers").alice);
    expect(right.status).toBe(429);
    expect(right.headers.get("set-cookie")).toBeNull();
    // Another address is not affected.
    expect((await login(address(), inject("testUsers").alice)).status).toBe(204);
  });

  it("throttles wrong bearer tokens on any route the same way, and keeps the count across a restart of the object", async () => {
    const from = address();
    const wrong = await statuses(Array.from({ length: BURST + 5 }, (_, i) => me(from, `guess-${i}-${crypto.randomUUID()}`)));
    expect(wrong.filter((s) => s === 401).length).toBeLessThanOrEqual(BURST);
    expect(wrong.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    expect(wrong.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect((await me(from, inject("testUsers").bob)).status).toBe(429);
    const sessions = await SELF.fetch(`${WORKER_ORIGIN}/sessions`, {
      method: "POST",
      headers: { "cf-connecting-ip": from, authorization: `Bearer ${inject("testUsers").bob}` },
    });
    expect(sessions.status).toBe(429);
    // Kept in the object's storage, not in an isolate: still throttled after it restarts.
    await abortAllDurableObjects();
    expect(await throttleOf(from).check(LIMITS)).toMatchObject({ blocked: true });
    // Bob from his own address is fine.
    expect((await me(address(), inject("testUsers").bob)).status).toBe(200);
  });

  it("gives failures back over time, counting only failures", async () => {
    const throttle = throttleOf(`test-${crypto.randomUUID()}`);
    const t0 = Date.now();
    const limits = { burst: 3, perMinute: 1 };
    expect(await throttle.check(limits, t0)).toEqual({ blocked: false, watchUntil: 0 });
    for (let i = 0; i < 3; i++) expect(await throttle.fail(limits, t0)).toMatchObject({ blocked: false });
    expect(await throttle.fail(limits, t0)).toEqual({ blocked: true, retryAfterMs: 60_000, watchUntil: t0 + 180_000 });
    // A success is checked, not counted: checking twice changes nothing.
    expect(await throttle.check(limits, t0 + 1_000)).toMatchObject({ blocked: true, retryAfterMs: 59_000 });
    expect(await throttle.check(limits, t0 + 1_000)).toMatchObject({ blocked: true, retryAfterMs: 59_000 });
    expect(await throttle.check(limits, t0 + 60_000)).toEqual({ blocked: false, watchUntil: t0 + 180_000 });
    expect(await throttle.fail(limits, t0 + 60_000)).toMatchObject({ blocked: false });
    expect(await throttle.fail(limits, t0 + 60_000)).toMatchObject({ blocked: true });
  });

  it("counts IPv6 clients by their /64 and treats a missing or odd header as one unknown client", () => {
    const of = (value?: string) => clientAddress(new Headers(value === undefined ? {} : { "cf-connecting-ip": value }));
    expect(of("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(of("2001:DB8:1:2:bbbb:cccc:dddd:2")).toBe("2001:db8:1:2::/64");
    expect(of("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(of("2001:db8:1:3::1")).not.toBe(of("2001:db8:1:2::1"));
    expect(of("203.0.113.7")).toBe("203.0.113.7");
    expect([of(), of(""), of("evil, 1.2.3.4"), of("x".repeat(100))]).toEqual(["unknown", "unknown", "unknown", "unknown"]);
  });
});
