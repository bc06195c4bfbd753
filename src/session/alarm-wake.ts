// "Call `callback` at `at` or earlier" on agents' schedule: one job row per callback, the
// earliest one due. The object has one alarm (agents'), shared by expiry, server retries,
// task polls and scheduled runs; each job is a row of agents' table and one alarm wake, so a
// callback keeps at most one future job.
import { errorMessage, type Logger } from "../shared/logger";

/** What the wake needs of the session's Agent (its public schedule API). */
export interface AlarmScheduler<C extends string = string> {
  getSchedules(): { id: string; callback: string; time: number }[];
  schedule(when: Date, callback: C): Promise<unknown>;
  cancelSchedule(id: string): Promise<boolean>;
}

/**
 * Makes sure `callback` runs at `at` (ms) or earlier: kept when a later-than-now one is due
 * by then; a later one is replaced. Jobs at or before now are ignored: one of them is the
 * callback running right now (its row lives until it returns), which must not stand for the next.
 */
export function wakeAt<C extends string>(agent: AlarmScheduler<C>, callback: C, at: number, log: Logger, now = Date.now()): void {
  const pending = agent.getSchedules().filter((s) => s.callback === callback && s.time * 1000 > now);
  if (pending.some((s) => s.time * 1000 <= at)) return;
  for (const s of pending) void agent.cancelSchedule(s.id).catch(() => false);
  // On a whole second: agents keeps schedule times in seconds, and one rounded down would wake the object before the row is due.
  void agent
    .schedule(new Date(Math.ceil(Math.max(at, now) / 1000) * 1000), callback)
    .catch((error: unknown) => log.warn("could not schedule a wake", { callback, error: errorMessage(error) }));
}

/** Cancels every future job of `callback` (a chat deleted, its last schedule removed). */
export function cancelWakes(agent: AlarmScheduler, callback: string): void {
  for (const s of agent.getSchedules()) if (s.callback === callback) void agent.cancelSchedule(s.id).catch(() => false);
}

/** agents' own storage key for an object's name, read when the runtime gives none (its PartyServer-era fallback). */
const AGENTS_NAME_KEY = "__ps_name";

/**
 * Keeps the session's name where agents looks for it when `ctx.id.name` is missing. In local
 * dev (workerd 1.20260426) an alarm that fires in a process started after a restart makes the
 * object without its name: agents then refuses the alarm and every later request to that
 * instance (500s until it is evicted), and a task poll is the alarm most likely to be due
 * then. Deployed, alarms carry the name and this is a read per wake that schedules a poll.
 */
export async function keepNameForAlarms(storage: Pick<DurableObjectStorage, "get" | "put">, name: string): Promise<void> {
  if ((await storage.get(AGENTS_NAME_KEY)) !== name) await storage.put(AGENTS_NAME_KEY, name);
}
