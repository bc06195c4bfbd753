// /api/push: the caller's push notification devices (docs/notifications.md). Whether push is on
// and why not, the devices (never their endpoints: capability URLs stay in the account), what a
// push shows (chat and tool names, or nothing but the kind), adding this browser's
// subscription, removing one, and a test push. Every route reads the caller's own account, so
// another person's device id is simply unknown.
import { type Context, Hono } from "hono";
import { z } from "zod";
import { pushConfig } from "../config/push";
import { runtimeConfig } from "../config/runtime-config";
import type { AppEnv } from "../identity/identify";
import { DEFAULT_PUSH_HOSTS, endpointRefusal, SubscriptionSchema } from "../push/endpoint-policy";
import type { VapidKeys } from "../push/vapid";
import { RequestError } from "../shared/errors";
import { userAccount } from "../users/account";
import { DeviceIdSchema } from "../users/push-devices";
import { limitBody, parsed } from "./request-body";
import { ActBodySchema, tokenSession } from "../session/notify/action-tokens";
import type { Identity } from "../identity/identify";
import { sessionStub } from "./owned-session";

export const pushRoutes = new Hono<AppEnv>();

const MAX_BODY_BYTES = 8_192;

/** The keys, or 503 saying push is off and why (the reason names variables, never values). */
async function vapidOf(c: Context<AppEnv>): Promise<VapidKeys> {
  const config = await pushConfig(c.env);
  if (config.state === "on") return config.vapid;
  const why = config.reason === "not_configured" ? "this deployment has no VAPID keys (docs/notifications.md)" : config.problem;
  throw new RequestError("push_not_configured", `push notifications are off: ${why}`);
}

function deviceId(c: Context<AppEnv>): string {
  const id = DeviceIdSchema.safeParse(c.req.param("id"));
  if (!id.success) throw new RequestError("push_device_unknown", "you have no device with that id");
  return id.data;
}

pushRoutes.get("/", async (c) => {
  const config = await pushConfig(c.env);
  const { detail, devices, dropped } = await userAccount(c.env, c.var.identity.id).listPushDevices();
  // `dropped`: what PUSH_PER_HOUR kept back so far, said in the page with the cap it hit.
  if (config.state === "on")
    return c.json({ state: "on", publicKey: config.vapid.publicKey, detail, devices, dropped, perHour: runtimeConfig(c.env).settings.PUSH_PER_HOUR });
  return c.json({ state: "off", reason: config.reason, ...("problem" in config ? { problem: config.problem } : {}), detail, devices });
});

const DetailSchema = z.object({ detail: z.enum(["full", "minimal"]) }).strict();

pushRoutes.patch("/", limitBody(MAX_BODY_BYTES), parsed("json", DetailSchema, 'the body must be {"detail": "full" | "minimal"}'), async (c) => {
  const { detail } = c.req.valid("json");
  await userAccount(c.env, c.var.identity.id).setPushDetail(detail);
  return c.json({ detail });
});

const AddSchema = z
  .object({
    subscription: SubscriptionSchema,
    label: z.string().trim().min(1).max(80).optional(),
    /** The device this subscription takes the place of (the service worker's pushsubscriptionchange). */
    replaces: DeviceIdSchema.optional(),
  })
  .strict();

pushRoutes.post("/devices", limitBody(MAX_BODY_BYTES), async (c) => {
  await vapidOf(c);
  // Parsed here rather than by `parsed`: a bad subscription is push_endpoint_refused, with its issues.
  const body = AddSchema.safeParse(await c.req.json().catch(() => undefined));
  if (!body.success) {
    const issues = body.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    throw new RequestError("push_endpoint_refused", 'the body must be {"subscription": {endpoint, keys: {p256dh, auth}}, "label"?}', { issues });
  }
  const { subscription, label, replaces } = body.data;
  const { settings } = runtimeConfig(c.env);
  const refusal = endpointRefusal(subscription.endpoint, settings.PUSH_SERVICE_HOSTS ?? DEFAULT_PUSH_HOSTS);
  if (refusal) throw new RequestError("push_endpoint_refused", refusal);
  const account = userAccount(c.env, c.var.identity.id);
  // A browser whose push service renewed its subscription: the old device goes (first, so the cap
  // never refuses its own successor) and its label stays. Another person's id is simply not found.
  let kept: string | undefined;
  if (replaces) {
    kept = (await account.listPushDevices()).devices.find((d) => d.id === replaces)?.label;
    if (kept !== undefined) await account.removePushDevice(replaces);
  }
  const added = await account.addPushDevice(
    { endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth, label: label ?? kept ?? "A browser" },
    settings.PUSH_DEVICES_PER_USER,
  );
  if (!added.ok) throw new RequestError("too_many_devices", `you have ${added.limit} devices already: remove one first`);
  return c.json({ id: added.id }, 201);
});

pushRoutes.delete("/devices/:id", async (c) => {
  if (!(await userAccount(c.env, c.var.identity.id).removePushDevice(deviceId(c))))
    throw new RequestError("push_device_unknown", "you have no device with that id");
  return c.body(null, 204);
});

/** A push to one device now, so the person sees what a notification looks like (and that it arrives). */
pushRoutes.post("/devices/:id/test", async (c) => {
  const vapid = await vapidOf(c);
  const id = deviceId(c);
  const summary = await userAccount(c.env, c.var.identity.id).pushNotice({ kind: "test", session: "-" }, vapid, { only: id });
  if (summary.devices === 0) throw new RequestError("push_device_unknown", "you have no device with that id");
  const outcome = summary.delivered > 0 ? "delivered" : summary.removed > 0 ? "removed" : "failed";
  runtimeConfig(c.env).logger.info("push sent", { kind: "test", devices: 1, delivered: summary.delivered, removed: summary.removed });
  return c.json({ outcome });
});

/**
 * POST /push/act: a notification's Allow once / Deny, from the service worker. The token is the
 * capability (a locked phone's worker may have no session cookie), so identity is optional here
 * (src/index.ts); someone signed in as another person than the token's spends it for nothing.
 */
export const pushAct = new Hono<AppEnv>();

pushAct.post(
  "/push/act",
  limitBody(MAX_BODY_BYTES),
  parsed("json", ActBodySchema, 'the body must be {"token": "...", "action": "allow" | "deny"}'),
  async (c) => {
    const { token, action } = c.req.valid("json");
    const session = tokenSession(token);
    if (!session) throw new RequestError("push_token_invalid", "this notification's action no longer works: open the chat");
    const presenter = (c.get("identity") as Identity | undefined)?.id;
    const answered = await (await sessionStub(c, session)).answerPush(token, action === "allow", presenter);
    if (!answered.ok) throw new RequestError(answered.code, answered.message);
    return c.json({ outcome: answered.outcome });
  },
);
