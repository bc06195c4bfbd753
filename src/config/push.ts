// Whether this deployment sends push notifications (issue 39, docs/notifications.md): on with
// the three VAPID variables set, well formed and belonging together; off otherwise, with the
// reason the page and GET /api/push show. None set is "not_configured" (npm run dev without
// keys: push off, everything else unchanged); some set, or any malformed, or a pair that does
// not sign and verify is "misconfigured" and names the variable, never its value. Off fails
// closed: nothing is ever sent with keys that are not right.
import { keysMatch, type VapidKeys, VapidKeysSchema } from "../push/vapid";
import type { Env } from "./env";

export type PushConfig =
  | { state: "on"; vapid: VapidKeys }
  | { state: "off"; reason: "not_configured" }
  | { state: "off"; reason: "misconfigured"; problem: string };

const NAMES = ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY", "VAPID_SUBJECT"] as const;

/** The variables' shapes only (synchronous): on, or off with why. */
export function readPushConfig(env: Partial<Record<(typeof NAMES)[number], string>>): PushConfig {
  const set = NAMES.filter((name) => env[name]?.trim());
  if (set.length === 0) return { state: "off", reason: "not_configured" };
  const missing = NAMES.filter((name) => !set.includes(name));
  if (missing.length > 0)
    return { state: "off", reason: "misconfigured", problem: `${missing.join(" and ")} must be set too (all three VAPID variables, or none)` };
  const parsed = VapidKeysSchema.safeParse({
    VAPID_PUBLIC_KEY: env.VAPID_PUBLIC_KEY?.trim(),
    VAPID_PRIVATE_KEY: env.VAPID_PRIVATE_KEY?.trim(),
    VAPID_SUBJECT: env.VAPID_SUBJECT?.trim(),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { state: "off", reason: "misconfigured", problem: `${String(issue?.path[0] ?? "VAPID")} is ${issue?.message ?? "not valid"}` };
  }
  const { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey, VAPID_SUBJECT: subject } = parsed.data;
  return { state: "on", vapid: { publicKey, privateKey, subject } };
}

// Per env object (one per isolate, fresh when wrangler reloads with new variables), like runtimeConfig.
const checked = new WeakMap<object, Promise<PushConfig>>();

/** readPushConfig plus the pair probe, once per isolate. */
export function pushConfig(env: Env): Promise<PushConfig> {
  let config = checked.get(env);
  if (!config) {
    config = (async (): Promise<PushConfig> => {
      const read = readPushConfig(env);
      if (read.state === "off" || (await keysMatch(read.vapid))) return read;
      return { state: "off", reason: "misconfigured", problem: "VAPID_PRIVATE_KEY does not match VAPID_PUBLIC_KEY" };
    })();
    checked.set(env, config);
  }
  return config;
}
