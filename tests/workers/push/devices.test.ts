// /api/push in real workerd: a person's push devices (subscriptions at the test push service),
// kept in their account, capped, upserted by endpoint, forgotten when the push service says
// they are gone, invisible to anyone else, and gone with Delete my data. A deployment without
// VAPID keys says so instead of taking devices.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { type TestUser, authHeaders } from "../test-users";
import { workerFetch, WORKER_ORIGIN } from "../worker-fetch";
import { newDevice, type PushDeviceFixture, pushesTo, scriptStatus } from "./push-fixture";

const json = { "content-type": "application/json" };

type PushState = {
  state: string;
  reason?: string;
  problem?: string;
  publicKey?: string;
  detail: string;
  devices: { id: string; label: string; lastOkAt: number | null; failing: boolean }[];
};

async function state(user: TestUser): Promise<PushState> {
  const response = await workerFetch("/api/push", {}, user);
  expect(response.status).toBe(200);
  return (await response.json()) as PushState;
}

function add(device: PushDeviceFixture, user: TestUser, label = "Test browser"): Promise<Response> {
  const subscription = { endpoint: device.endpoint, expirationTime: null, keys: device.keys };
  return workerFetch("/api/push/devices", { method: "POST", headers: json, body: JSON.stringify({ subscription, label }) }, user);
}

async function addedId(device: PushDeviceFixture, user: TestUser): Promise<string> {
  const response = await add(device, user);
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

const test = (id: string, user: TestUser) => workerFetch(`/api/push/devices/${id}/test`, { method: "POST" }, user);

async function removeAll(user: TestUser): Promise<void> {
  for (const { id } of (await state(user)).devices) expect((await workerFetch(`/api/push/devices/${id}`, { method: "DELETE" }, user)).status).toBe(204);
}

describe("/api/push devices", () => {
  it("says push is on with the public key, lists an added device without its endpoint, and adds the same browser once", async () => {
    await removeAll("erin");
    const device = await newDevice();
    const first = await addedId(device, "erin");
    expect(await addedId(device, "erin")).toBe(first);
    const now = await state("erin");
    expect(now.state).toBe("on");
    expect(now.publicKey).toBe((env as { VAPID_PUBLIC_KEY?: string }).VAPID_PUBLIC_KEY);
    // What PUSH_PER_HOUR kept back so far, with the cap, for the page to say (push-cap.test.ts counts them).
    expect(now).toMatchObject({ dropped: { count: expect.any(Number) }, perHour: 30 });
    expect(now.devices).toEqual([expect.objectContaining({ id: first, label: "Test browser", lastOkAt: null, failing: false })]);
    // The endpoint is a capability URL: never part of what the page gets.
    expect(JSON.stringify(now)).not.toContain(device.id);
  });

  it("sends a test push the device decrypts, and records the delivery", async () => {
    await removeAll("erin");
    const device = await newDevice();
    const id = await addedId(device, "erin");
    const sent = await test(id, "erin");
    expect(await sent.json()).toEqual({ outcome: "delivered" });
    const [push] = await pushesTo(device, 1);
    expect(push?.verified).toBe(true);
    expect(JSON.parse(push?.plaintext ?? "{}")).toMatchObject({ v: 1, kind: "test" });
    expect((await state("erin")).devices[0]?.lastOkAt).toEqual(expect.any(Number));
  });

  it("forgets a device whose push service answers 410 or 404, and one refused three times in a row", async () => {
    await removeAll("erin");
    const [gone, missing, refused, busy] = [await newDevice(), await newDevice(), await newDevice(), await newDevice()];
    const ids = {
      gone: await addedId(gone, "erin"),
      missing: await addedId(missing, "erin"),
      refused: await addedId(refused, "erin"),
      busy: await addedId(busy, "erin"),
    };
    await scriptStatus(gone, 410);
    await scriptStatus(missing, 404);
    await scriptStatus(refused, 403);
    await scriptStatus(busy, 500);
    expect(await (await test(ids.gone, "erin")).json()).toEqual({ outcome: "removed" });
    expect(await (await test(ids.missing, "erin")).json()).toEqual({ outcome: "removed" });
    for (let i = 0; i < 2; i++) expect(await (await test(ids.refused, "erin")).json()).toEqual({ outcome: "failed" });
    expect(await (await test(ids.refused, "erin")).json()).toEqual({ outcome: "removed" });
    // A push service that is down is not the device's fault: kept, shown failing.
    for (let i = 0; i < 3; i++) expect(await (await test(ids.busy, "erin")).json()).toEqual({ outcome: "failed" });
    expect((await state("erin")).devices).toEqual([expect.objectContaining({ id: ids.busy, failing: true })]);
    expect((await test(ids.gone, "erin")).status).toBe(404);
  });

  it(`refuses a device past the cap (409), endpoints off the push services' list and malformed keys (400)`, async () => {
    await removeAll("frank");
    for (let i = 0; i < 10; i++) await addedId(await newDevice(), "frank");
    const over = await add(await newDevice(), "frank");
    expect(over.status).toBe(409);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("too_many_devices");
    await removeAll("frank");
    const device = await newDevice();
    const refusals = [
      { endpoint: device.endpoint.replace("https://localhost", "https://push.evil.example"), keys: device.keys },
      { endpoint: device.endpoint.replace("https:", "http:"), keys: device.keys },
      { endpoint: device.endpoint.replace("https://", "https://user:pw@"), keys: device.keys },
      { endpoint: device.endpoint, keys: { ...device.keys, auth: "AAAA" } },
      // Not decodable at all (a length of 4n+1, characters outside base64url): a 400, not a 500.
      { endpoint: device.endpoint, keys: { p256dh: "a", auth: "b" } },
      { endpoint: device.endpoint, keys: { p256dh: "not*base64", auth: "%%%%" } },
    ];
    for (const subscription of refusals) {
      const response = await workerFetch("/api/push/devices", { method: "POST", headers: json, body: JSON.stringify({ subscription }) }, "frank");
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("push_endpoint_refused");
      // Never echoed: the endpoint is a capability URL.
      expect(body.error.message).not.toContain(device.id);
    }
    expect((await state("frank")).devices).toEqual([]);
  });

  it("another person's device is unknown: not removed, not tested, not listed", async () => {
    await removeAll("erin");
    const id = await addedId(await newDevice(), "erin");
    for (const response of [await workerFetch(`/api/push/devices/${id}`, { method: "DELETE" }, "frank"), await test(id, "frank")]) {
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("push_device_unknown");
    }
    expect((await state("frank")).devices.map((d) => d.id)).not.toContain(id);
    expect((await state("erin")).devices.map((d) => d.id)).toEqual([id]);
  });

  it("a renewed subscription replaces its old device and keeps its label; another person's id is not removed", async () => {
    await removeAll("erin");
    await removeAll("frank");
    const replace = (device: PushDeviceFixture, user: TestUser, replaces: string) =>
      workerFetch(
        "/api/push/devices",
        { method: "POST", headers: json, body: JSON.stringify({ subscription: { endpoint: device.endpoint, keys: device.keys }, replaces }) },
        user,
      );
    const old = await addedId(await newDevice(), "erin");
    const renewed = await replace(await newDevice(), "erin", old);
    expect(renewed.status).toBe(201);
    const id = ((await renewed.json()) as { id: string }).id;
    expect((await state("erin")).devices).toEqual([expect.objectContaining({ id, label: "Test browser" })]);
    // frank naming erin's device: his own is added, hers stays.
    expect((await replace(await newDevice(), "frank", id)).status).toBe(201);
    expect((await state("erin")).devices.map((d) => d.id)).toEqual([id]);
    expect((await state("frank")).devices.map((d) => d.label)).toEqual(["A browser"]);
    // Not a device id at all: the body is refused, naming the field.
    const bad = await replace(await newDevice(), "erin", "../other");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("replaces");
  });

  it("keeps what a push shows (detail) per person", async () => {
    const patch = (detail: string) => workerFetch("/api/push", { method: "PATCH", headers: json, body: JSON.stringify({ detail }) }, "erin");
    expect((await patch("minimal")).status).toBe(200);
    expect((await state("erin")).detail).toBe("minimal");
    expect((await patch("loud")).status).toBe(400);
    expect((await patch("full")).status).toBe(200);
    expect((await state("erin")).detail).toBe("full");
  });

  it("Delete my data removes the devices", async () => {
    await addedId(await newDevice(), "carol");
    expect((await state("carol")).devices).toHaveLength(1);
    expect((await workerFetch("/api/account", { method: "DELETE" }, "carol")).status).toBe(200);
    expect((await state("carol")).devices).toEqual([]);
  });

  it("without VAPID keys push is off with the reason, and a device is refused with 503", async () => {
    const call = async (path: string, init: RequestInit, vars: Record<string, string | undefined>) => {
      const ctx = createExecutionContext();
      const request = new Request(`${WORKER_ORIGIN}${path}`, { ...init, headers: authHeaders("erin", init.headers) });
      const response = await worker.fetch(request, { ...env, ...vars } as never, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };
    const none = { VAPID_PUBLIC_KEY: undefined, VAPID_PRIVATE_KEY: undefined, VAPID_SUBJECT: undefined };
    expect(await (await call("/api/push", {}, none)).json()).toMatchObject({ state: "off", reason: "not_configured" });
    const partial = (await (await call("/api/push", {}, { VAPID_PRIVATE_KEY: undefined })).json()) as PushState;
    expect(partial).toMatchObject({ state: "off", reason: "misconfigured", problem: expect.stringContaining("VAPID_PRIVATE_KEY") });
    expect(partial.publicKey).toBeUndefined();
    // A private key of the right shape that is not the public key's: caught by the pair probe, never echoed.
    const other = `${"A".repeat(42)}E`;
    const mismatched = (await (await call("/api/push", {}, { VAPID_PRIVATE_KEY: other })).json()) as PushState;
    expect(mismatched).toMatchObject({ state: "off", reason: "misconfigured", problem: "VAPID_PRIVATE_KEY does not match VAPID_PUBLIC_KEY" });
    const device = await newDevice();
    const subscription = { endpoint: device.endpoint, keys: device.keys };
    const refused = await call("/api/push/devices", { method: "POST", headers: json, body: JSON.stringify({ subscription }) }, none);
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("push_not_configured");
    expect(body.error.message).toContain("no VAPID keys");
  });
});
