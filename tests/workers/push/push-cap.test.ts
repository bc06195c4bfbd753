// PUSH_PER_HOUR (30 by default, unchanged here) in real workerd with the test push service:
// a person's 31st notification within an hour is dropped, not sent, and counted in their
// device list and in the operator's /admin count; their own Test push is not held back; an
// hour after the first, one goes again. A person nobody else's test counts (a fresh account id),
// so the 30 leave no one else's hour full. Time is moved by `now`, never waited for.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { pushConfig } from "../../../src/config/push";
import { runtimeConfig } from "../../../src/config/runtime-config";
import { operations } from "../../../src/ops/operations-object";
import type { PushNotice } from "../../../src/push/notice";
import type { VapidKeys } from "../../../src/push/vapid";
import { pushTo } from "../../../src/session/notify/push-port";
import { userAccount } from "../../../src/users/account";
import { newDevice, pushesTo } from "./push-fixture";

const bindings = env as unknown as Env;
const HOUR = 60 * 60_000;

async function vapid(): Promise<VapidKeys> {
  const config = await pushConfig(bindings);
  if (config.state !== "on") throw new Error("push is off in the test Worker");
  return config.vapid;
}

describe("PUSH_PER_HOUR", () => {
  it("drops and counts the pushes past the cap in an hour; a Test push is not held; an hour on, one goes again", async () => {
    const { settings, logger } = runtimeConfig(bindings);
    expect(settings.PUSH_PER_HOUR).toBe(30);
    const user = `token:cap-${crypto.randomUUID()}`;
    const account = userAccount(bindings, user);
    const device = await newDevice();
    const added = await account.addPushDevice({ endpoint: device.endpoint, p256dh: device.keys.p256dh, auth: device.keys.auth, label: "phone" }, 10);
    expect(added.ok).toBe(true);
    const keys = await vapid();
    const notice = (i: number): PushNotice => ({ kind: "turn_done", session: "cap-chat", ref: `turn-${i}` });

    // The first at t0, the other 29 half an hour later: an hour after t0 exactly one place comes free.
    const t0 = Date.now();
    for (let i = 0; i < 30; i++) {
      const sent = await account.pushNotice(notice(i), keys, { perHour: settings.PUSH_PER_HOUR, now: i === 0 ? t0 : t0 + HOUR / 2 });
      expect(sent, `push ${i}`).toMatchObject({ delivered: 1 });
    }
    const past = await account.pushNotice(notice(30), keys, { perHour: settings.PUSH_PER_HOUR, now: t0 + HOUR / 2 + 1 });
    expect(past).toMatchObject({ delivered: 0, dropped: true });
    expect(await pushesTo(device, 30)).toHaveLength(30);
    expect((await account.listPushDevices()).dropped).toEqual({ count: 1, lastAt: t0 + HOUR / 2 + 1 });

    // Through the session's path (push-port.ts reads the setting): dropped too, and the operator's count goes up.
    const before = (await operations(bindings).snapshot()).pushesDropped;
    await pushTo(bindings, user, notice(31), logger);
    expect((await account.listPushDevices()).dropped.count).toBe(2);
    await expect.poll(async () => (await operations(bindings).snapshot()).pushesDropped).toBe(before + 1);

    // The person's own Test push is not counted against the hour.
    expect(await account.pushNotice({ kind: "test", session: "-" }, keys, { only: added.ok ? added.id : "" })).toMatchObject({ delivered: 1 });
    // An hour after the first, its place is free again: one more goes, the next is dropped.
    expect(await account.pushNotice(notice(32), keys, { perHour: settings.PUSH_PER_HOUR, now: t0 + HOUR + 1 })).toMatchObject({ delivered: 1 });
    expect(await account.pushNotice(notice(33), keys, { perHour: settings.PUSH_PER_HOUR, now: t0 + HOUR + 2 })).toMatchObject({ dropped: true });
    const received = (await pushesTo(device, 32)).map((p) => JSON.parse(p.plaintext ?? "{}") as { kind: string; ref?: string });
    expect(received).toHaveLength(32);
    expect(received.at(-2)).toMatchObject({ kind: "test" });
    expect(received.at(-1)).toMatchObject({ kind: "turn_done", ref: "turn-32" });
  });
});
