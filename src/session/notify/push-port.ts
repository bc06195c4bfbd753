// A session's way to a person's devices: the deployment's push config (off: nothing is sent)
// and their account's pushNotice. One info line per notice, with counts only (never the
// endpoint, never the payload).
import type { Env } from "../../config/env";
import { pushConfig } from "../../config/push";
import { runtimeConfig } from "../../config/runtime-config";
import { operations } from "../../ops/operations-object";
import type { PushNotice } from "../../push/notice";
import { errorMessage, type Logger } from "../../shared/logger";
import { userAccount } from "../../users/account";

/** `token`: an approval's action token, minted only when push is on (action-tokens.ts). */
export async function pushTo(env: Env, user: string, notice: PushNotice, log: Logger, token?: () => Promise<string>): Promise<void> {
  try {
    const config = await pushConfig(env);
    if (config.state !== "on") return;
    const started = Date.now();
    const withToken = token ? { ...notice, token: await token() } : notice;
    const perHour = runtimeConfig(env).settings.PUSH_PER_HOUR;
    const summary = await userAccount(env, user).pushNotice(withToken, config.vapid, { perHour });
    if (summary.dropped) {
      log.warn("push dropped", { kind: notice.kind, reason: "PUSH_PER_HOUR reached", perHour });
      void operations(env)
        .pushDropped()
        .catch(() => undefined);
    } else if (summary.devices > 0) log.info("push sent", { kind: notice.kind, ...summary, ms: Date.now() - started });
  } catch (error) {
    log.warn("push failed", { kind: notice.kind, error: errorMessage(error) });
  }
}
