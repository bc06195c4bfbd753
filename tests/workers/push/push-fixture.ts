// The test push service (tests/fixtures/push-service.ts) as workerd tests reach it: its
// control port over plain http on 127.0.0.1.
import { expect, inject } from "vitest";
import type { TestUser } from "../test-users";
import { workerFetch } from "../worker-fetch";
import type { PushDeviceFixture, ReceivedPush } from "../../fixtures/push-service";

export type { PushDeviceFixture, ReceivedPush };

const control = (path: string) => `${inject("pushControlUrl")}${path}`;

/** A browser's subscription at the test push service. */
export async function newDevice(): Promise<PushDeviceFixture> {
  return (await (await fetch(control("/devices"), { method: "POST" })).json()) as PushDeviceFixture;
}

/** The pushes `device` received, once there are `count` of them (the service answers when the last arrives). */
export async function pushesTo(device: PushDeviceFixture, count = 0): Promise<ReceivedPush[]> {
  return (await (await fetch(control(`/devices/${device.id}/messages?wait=${count}`))).json()) as ReceivedPush[];
}

/** Later pushes to `device` answer `status` (410: the browser unsubscribed, …). */
export async function scriptStatus(device: PushDeviceFixture, status: number): Promise<void> {
  await (await fetch(control(`/devices/${device.id}/status`), { method: "PUT", body: JSON.stringify({ status }) })).body?.cancel();
}

/** A fresh device of `user`'s, their only one (the devices other files left are removed first). */
export async function onlyDevice(user: TestUser): Promise<PushDeviceFixture> {
  const listed = (await (await workerFetch("/api/push", {}, user)).json()) as { devices: { id: string }[] };
  for (const { id } of listed.devices) await workerFetch(`/api/push/devices/${id}`, { method: "DELETE" }, user);
  const device = await newDevice();
  const body = JSON.stringify({ subscription: { endpoint: device.endpoint, keys: device.keys } });
  expect((await workerFetch("/api/push/devices", { method: "POST", headers: { "content-type": "application/json" }, body }, user)).status).toBe(201);
  return device;
}
