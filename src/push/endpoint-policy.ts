// Which URLs the Worker POSTs a push to. A subscription's endpoint comes from the browser, so
// from the person: without a policy it would be a way to make the Worker send requests
// anywhere. Only https, no user name, and a host on the push services' list (the default
// covers Chrome/Edge/Firefox/Safari); a deployment may replace the list (PUSH_SERVICE_HOSTS),
// and tests list localhost there. An entry starting with "." matches any host under it.
import { z } from "zod";
import { b64urlBytes } from "./vapid";

export const DEFAULT_PUSH_HOSTS = [
  "fcm.googleapis.com",
  "updates.push.services.mozilla.com",
  "push.services.mozilla.com",
  ".notify.windows.com",
  "web.push.apple.com",
  ".push.apple.com",
];

/** Why `endpoint` may not be pushed to, or undefined when it may. Never echoes the endpoint (a capability URL). */
export function endpointRefusal(endpoint: string, hosts: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "the endpoint is not a URL";
  }
  if (url.protocol !== "https:") return "the endpoint must be https";
  if (url.username || url.password) return "the endpoint may not carry a user name";
  const host = url.hostname.toLowerCase();
  const listed = hosts.some((entry) => (entry.startsWith(".") ? host.endsWith(entry) : host === entry));
  return listed ? undefined : `${host} is not a push service this deployment sends to`;
}

/** A browser's PushSubscription as `toJSON()` gives it. */
export const SubscriptionSchema = z.object({
  endpoint: z.string().min(10).max(2_048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: b64urlBytes(65, true), auth: b64urlBytes(16) }),
});
export type Subscription = z.infer<typeof SubscriptionSchema>;
