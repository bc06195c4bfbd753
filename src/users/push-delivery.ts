// A notice to every device of one person, all at once: the payload (src/push/notice.ts) is
// encrypted per device and POSTed to its push service, and each answer applied to the device
// list: delivered → its last delivery; gone (404/410) → forgotten; refused (400/403/413) →
// counted, forgotten at the third in a row; busy or down (429/5xx/network) → counted, kept,
// not retried (a late "approve?" is worth less than a missing one: the chat still shows it).
import { type PushNotice, payloadFor, type PushPayload } from "../push/notice";
import { type PushResult, sendPush } from "../push/sender";
import type { VapidKeys } from "../push/vapid";
import type { PushDevices } from "./push-devices";

export interface DeliverySummary {
  devices: number;
  delivered: number;
  removed: number;
  failed: number;
  /** Not sent: the person's PUSH_PER_HOUR was reached (push-cap.ts). */
  dropped?: true;
}

/** How long a push service keeps trying to reach an offline device, and how urgently. */
function delivery(notice: PushNotice, now: number): { ttl: number; urgency: "high" | "normal" } {
  if (notice.kind === "approval" || notice.kind === "question") {
    // An approval is worth delivering only while it can still be answered.
    const ttl = notice.expiresAt ? Math.max(60, Math.floor((notice.expiresAt - now) / 1000)) : 600;
    return { ttl, urgency: "high" };
  }
  return { ttl: 3_600, urgency: "normal" };
}

export async function deliverNotice(
  devices: PushDevices,
  notice: PushNotice,
  chatTitle: string | null | undefined,
  vapid: VapidKeys,
  now: number,
  only?: string,
): Promise<DeliverySummary> {
  const targets = devices.targets(only);
  const payload: PushPayload = payloadFor(notice, devices.detail(), chatTitle);
  const options = delivery(notice, now);
  const results = await Promise.all(targets.map((t) => sendPush(t, payload, vapid, options).catch((): PushResult => ({ outcome: "failed" }))));
  const summary: DeliverySummary = { devices: targets.length, delivered: 0, removed: 0, failed: 0 };
  results.forEach((result, i) => {
    const id = targets[i]?.id ?? "";
    if (result.outcome === "delivered") {
      devices.delivered(id, Date.now());
      summary.delivered++;
    } else if (result.outcome === "gone") {
      if (devices.remove(id)) summary.removed++;
    } else {
      summary.failed++;
      if (devices.failed(id, result.outcome === "rejected")) summary.removed++;
    }
  });
  return summary;
}
