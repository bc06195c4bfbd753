// One push from the Worker's sender, in real workerd, to the test push service: the service
// verifies the VAPID JWT and decrypts the body with the device's keys (http_ece), so the
// payload reads back only if it was encrypted and signed as RFC 8291/8292 say.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/config/env";
import { sendPush } from "../../../src/push/sender";
import { newDevice, pushesTo, scriptStatus } from "./push-fixture";

const { VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT } = env as unknown as Env;
const vapid = { publicKey: VAPID_PUBLIC_KEY ?? "", privateKey: VAPID_PRIVATE_KEY ?? "", subject: VAPID_SUBJECT ?? "" };

describe("sendPush", () => {
  it("reaches the push service signed and encrypted for the device", async () => {
    const device = await newDevice();
    const target = { endpoint: device.endpoint, ...device.keys };
    const payload = { v: 1, kind: "approval", session: "s1", tag: "approval:c1", tool: "write_file" };
    const result = await sendPush(target, payload, vapid, { ttl: 600, urgency: "high" });
    expect(result).toEqual({ outcome: "delivered", status: 201 });
    const [push, ...more] = await pushesTo(device, 1);
    expect(more).toEqual([]);
    expect(push?.problem).toBeUndefined();
    expect(push?.verified).toBe(true);
    expect(JSON.parse(push?.plaintext ?? "null")).toEqual(payload);
    expect(push?.claims?.sub).toBe("mailto:ops@edgehost.test");
    expect(push?.headers.ttl).toBe("600");
    expect(push?.headers.urgency).toBe("high");
  });

  it("classes the service's answers: 410 and 404 gone, 403 rejected, 500 failed", async () => {
    const device = await newDevice();
    const target = { endpoint: device.endpoint, ...device.keys };
    const outcomes = [];
    for (const status of [410, 404, 403, 500]) {
      await scriptStatus(device, status);
      outcomes.push(await sendPush(target, { v: 1 }, vapid, { ttl: 60, urgency: "normal" }));
    }
    expect(outcomes).toEqual([
      { outcome: "gone", status: 410 },
      { outcome: "gone", status: 404 },
      { outcome: "rejected", status: 403 },
      { outcome: "failed", status: 500 },
    ]);
  });

  it("a device whose keys are not the subscription's cannot read the payload", async () => {
    const [device, other] = [await newDevice(), await newDevice()];
    const result = await sendPush({ endpoint: device.endpoint, ...other.keys }, { v: 1 }, vapid, { ttl: 60, urgency: "normal" });
    expect(result.outcome).toBe("rejected");
    const [push] = await pushesTo(device, 1);
    expect(push?.verified).toBe(false);
    expect(push?.problem).toMatch(/does not decrypt/);
  });
});
