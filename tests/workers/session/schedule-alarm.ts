// Moving a chat's schedules in time for workerd tests (schedules.test.ts, push/schedule-push.test.ts):
// every schedule of the chat made due, agents' job due, then the object's alarm run. Time is
// moved, never waited for.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import type { Env } from "../../../src/config/env";
import type { ChatSession } from "../../../src/session/ChatSession";

export const stubOf = (id: string) => getAgentByName((env as unknown as Env).CHAT_SESSION as unknown as DurableObjectNamespace<ChatSession>, id);

/** Moves time: every schedule of the chat is due now, and so is agents' job; then the object's alarm runs. */
export async function fireAlarm(id: string): Promise<void> {
  const stub = await stubOf(id);
  await runInDurableObject(stub, async (instance, state) => {
    const past = Date.now() - 1_000;
    state.storage.sql.exec("UPDATE schedules SET next_at = ?", past);
    await instance.schedule(new Date(past), "runSchedules");
  });
  // The alarm may have fired by itself already (its time is past): either way runSchedules ran or runs now.
  await runDurableObjectAlarm(stub);
}
