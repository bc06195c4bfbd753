// One push to one device: the payload encrypted for the device's keys (RFC 8291, aes128gcm),
// signed for the push service (RFC 8292 VAPID), POSTed, and the service's answer classed as
// the caller acts on it. No redirects (a push service never redirects; following one would
// send the request somewhere the endpoint policy never checked) and a short timeout.
import { buildPushPayload } from "@block65/webcrypto-web-push";
import type { VapidKeys } from "./vapid";

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** delivered: 2xx; gone: 404/410 (unsubscribed: forget the device); rejected: 4xx (our request or keys); failed: 429/5xx/network. */
export type PushOutcome = "delivered" | "gone" | "rejected" | "failed";

export interface PushResult {
  outcome: PushOutcome;
  status?: number;
}

export const PUSH_TIMEOUT_MS = 5_000;

export function outcomeOf(status: number): PushOutcome {
  if (status >= 200 && status < 300) return "delivered";
  if (status === 404 || status === 410) return "gone";
  if (status === 429 || status >= 500) return "failed";
  return "rejected";
}

export async function sendPush(
  target: PushTarget,
  data: object,
  vapid: VapidKeys,
  options: { ttl: number; urgency: "high" | "normal" | "low" },
): Promise<PushResult> {
  const subscription = { endpoint: target.endpoint, expirationTime: null, keys: { p256dh: target.p256dh, auth: target.auth } };
  const request = await buildPushPayload({ data: data as Record<string, string>, options }, subscription, vapid);
  try {
    const response = await fetch(target.endpoint, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
    // The body is never read (a push service's text is not shown anywhere); cancelled so the connection is freed.
    await response.body?.cancel();
    return { outcome: outcomeOf(response.status), status: response.status };
  } catch {
    return { outcome: "failed" };
  }
}
