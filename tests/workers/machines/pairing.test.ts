// Pairing's bounds through the Worker in real workerd: looking codes up and approving them
// share one throttle per client address and per person (a wrong code is a failed guess),
// pairing starts (no identity) are capped in flight per address and for the deployment,
// and a pairing's object forgets everything once collected or expired. Each test comes
// from addresses of its own (CF-Connecting-IP) and guesses as a person who pairs nowhere
// else in this run (dave, erin), so no test inherits another's count.
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import type { SignInThrottle } from "../../../src/identity/SignInThrottle";
import type { PairingCode } from "../../../src/machines/PairingCode";
import type { TestUser } from "../test-users";
import { WORKER_ORIGIN, workerFetch } from "../worker-fetch";

const bindings = env as unknown as Env;
const json = { "content-type": "application/json" };
/** SIGN_IN_FAILURE_BURST's default. */
const BURST = 10;
/** PAIRINGS_PER_ADDRESS's default, and a code's lifetime. */
const PER_ADDRESS = 10;
const TTL_MS = 10 * 60_000;

const address = () => `198.18.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
type Started = { code: string; pollToken: string; name: string; expiresInMs: number };
type Refusal = { error: { code: string; message: string; retryAfterMs?: number } };

const start = (from: string, name = "box") =>
  SELF.fetch(`${WORKER_ORIGIN}/api/machines/pair`, { method: "POST", headers: { ...json, "cf-connecting-ip": from }, body: JSON.stringify({ name }) });
const started = async (from: string, name = "box") => {
  const answer = await start(from, name);
  expect(answer.status).toBe(201);
  return (await answer.json()) as Started;
};
const lookUp = (code: string, user: TestUser, from: string) =>
  workerFetch(`/api/machines/pair/${encodeURIComponent(code)}`, { headers: { "cf-connecting-ip": from } }, user);
const approve = (code: string, user: TestUser, from: string) =>
  workerFetch("/api/machines/approve", { method: "POST", headers: { ...json, "cf-connecting-ip": from }, body: JSON.stringify({ code }) }, user);
/** A well-formed code that names no pairing (letters and digits of the code alphabet). */
const madeUp = (i: number) => `ZZZZ-${"ABCDEFGHJK"[Math.floor(i / 10) % 10]}${"ABCDEFGHJK"[i % 10]}ZZ`;

const pairingObject = (code: string) => {
  const namespace = bindings.PAIRING_CODE as unknown as DurableObjectNamespace<PairingCode>;
  return namespace.get(namespace.idFromName(code));
};
const throttleObject = (key: string) => {
  const namespace = bindings.SIGN_IN_THROTTLE as unknown as DurableObjectNamespace<SignInThrottle>;
  return namespace.get(namespace.idFromName(key));
};
/** What a pairing's object still keeps: its storage keys and its alarm. */
const leftIn = (code: string) =>
  runInDurableObject(pairingObject(code), async (_, state) => ({
    keys: [...(await state.storage.list()).keys()],
    alarm: await state.storage.getAlarm(),
  }));

describe("looking up and approving pairing codes", () => {
  it("counts wrong codes per address, look-ups and approvals alike; then even the right code answers 429 there, and not elsewhere", async () => {
    const from = address();
    const pending = await started(address(), "laptop");
    const wrong: number[] = [];
    for (let i = 0; i < BURST; i++) wrong.push((await (i % 2 ? approve(madeUp(i), "dave", from) : lookUp(madeUp(i), "dave", from))).status);
    expect(wrong).toEqual(Array(BURST).fill(404));
    // The next guess from that address, by anyone, and the right code too: throttled.
    const throttled = await lookUp(madeUp(BURST), "dave", from);
    expect(throttled.status).toBe(429);
    expect(((await throttled.json()) as Refusal).error).toMatchObject({
      code: "sign_in_throttled",
      message: expect.stringMatching(/^Too many wrong pairing codes from your address or account: try again in \d+ s\.$/),
    });
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await lookUp(pending.code, "bob", from)).status).toBe(429);
    expect((await approve(pending.code, "bob", from)).status).toBe(429);
    // The right code from another address shows the name the machine asked for (the code is the secret).
    const shown = await lookUp(pending.code, "bob", address());
    expect(shown.status).toBe(200);
    expect(await shown.json()).toMatchObject({ name: "laptop" });
  });

  it("counts wrong codes per person: guesses spread over addresses are throttled too, and other people are not", async () => {
    const pending = await started(address(), "desktop");
    const wrong: number[] = [];
    for (let i = 0; i < BURST; i++) wrong.push((await lookUp(madeUp(i), "erin", address())).status);
    expect(wrong).toEqual(Array(BURST).fill(404));
    expect((await lookUp(madeUp(BURST), "erin", address())).status).toBe(429);
    expect((await lookUp(pending.code, "erin", address())).status).toBe(429);
    expect((await approve(pending.code, "erin", address())).status).toBe(429);
    // Someone else, from their own address, with the right code.
    const shown = await lookUp(pending.code, "bob", address());
    expect(shown.status).toBe(200);
    expect(await shown.json()).toMatchObject({ name: "desktop" });
  });
});

describe("starting pairings (no identity)", () => {
  it("caps pairings in flight per address: 14 at once make exactly PAIRINGS_PER_ADDRESS (10), the rest 429 with when to retry", async () => {
    const from = address();
    const answers = await Promise.all(Array.from({ length: PER_ADDRESS + 4 }, (_, i) => start(from, `flood-${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(PER_ADDRESS);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    const refused = answers.find((a) => a.status === 429);
    const body = (await refused?.json()) as Refusal;
    expect(body.error).toMatchObject({
      code: "rate_limited",
      message: expect.stringMatching(/^Too many pairings started from your address: try again in \d+ s\.$/),
    });
    expect(body.error.retryAfterMs).toBeGreaterThan(TTL_MS - 60_000);
    expect(body.error.retryAfterMs).toBeLessThanOrEqual(TTL_MS);
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(500);
    // Another address is not affected.
    expect((await start(address())).status).toBe(201);
  });

  it("caps them for the deployment too, each hold counted until its code would expire", async () => {
    const all = throttleObject(`pairing-starts:test-${crypto.randomUUID()}`);
    const t0 = Date.now();
    const verdicts = [];
    for (let i = 0; i < 4; i++) verdicts.push(await all.hold(3, TTL_MS, t0 + i * 1_000));
    expect(verdicts).toEqual([{ blocked: false }, { blocked: false }, { blocked: false }, { blocked: true, retryAfterMs: TTL_MS - 3_000 }]);
    // Once the first has expired there is room for one.
    expect(await all.hold(3, TTL_MS, t0 + TTL_MS)).toEqual({ blocked: false });
    expect(await all.hold(3, TTL_MS, t0 + TTL_MS)).toMatchObject({ blocked: true });
  });
});

describe("a pairing's object", () => {
  it("forgets everything once the bridge collected its credential: storage deleted, alarm cleared", async () => {
    const pending = await started(address(), "collected");
    expect(await leftIn(pending.code)).toMatchObject({ keys: ["pairing"], alarm: expect.any(Number) });
    expect((await approve(pending.code, "bob", address())).status).toBe(201);
    const poll = () => SELF.fetch(`${WORKER_ORIGIN}/api/machines/pair/poll`, { method: "POST", headers: json, body: JSON.stringify(pending) });
    const first = await poll();
    expect(((await first.json()) as { state: string }).state).toBe("approved");
    expect(await leftIn(pending.code)).toEqual({ keys: [], alarm: null });
    expect((await poll()).status).toBe(404);
    // Bob's machine is his to remove.
    const listed = (await (await workerFetch("/api/machines", {}, "bob")).json()) as { machines: { id: string; name: string }[] };
    for (const machine of listed.machines.filter((m) => m.name === "collected"))
      expect((await workerFetch(`/api/machines/${machine.id}`, { method: "DELETE" }, "bob")).status).toBe(204);
  });

  it("forgets everything when it expires unapproved", async () => {
    const pending = await started(address(), "abandoned");
    expect(await runDurableObjectAlarm(pairingObject(pending.code))).toBe(true);
    expect(await leftIn(pending.code)).toEqual({ keys: [], alarm: null });
    expect((await lookUp(pending.code, "bob", address())).status).toBe(404);
  });
});
