// When a session's held tasks are polled next: one agents schedule of "pollTasks", the
// earliest one due. The object's own alarm is agents' (its expiry and server-retry
// schedules share it); each schedule is a row of agents' table and one alarm wake. A poll
// due within a couple of seconds also gets a timer of the wake (TaskWake).
import { errorMessage, type Logger } from "../../shared/logger";

/** What the wake needs of the session's Agent. */
export interface TaskScheduler {
  getSchedules(): { id: string; callback: string; time: number }[];
  schedule(when: Date, callback: "pollTasks"): Promise<unknown>;
  cancelSchedule(id: string): Promise<boolean>;
}

/**
 * Makes sure `pollTasks` runs at `at` (ms) or earlier: kept when a later-than-now one is due
 * by then; a later one is replaced. Schedules at or before now are ignored: one of them is
 * the poll running right now (its row lives until it returns), which must not stand for the next.
 */
export function wakeForTasks(agent: TaskScheduler, at: number, log: Logger, now = Date.now()): void {
  const pending = agent.getSchedules().filter((s) => s.callback === "pollTasks" && s.time * 1000 > now);
  if (pending.some((s) => s.time * 1000 <= at)) return;
  for (const s of pending) void agent.cancelSchedule(s.id).catch(() => false);
  // On a whole second: agents keeps schedule times in seconds, and one rounded down would wake the object before the row is due.
  void agent
    .schedule(new Date(Math.ceil(Math.max(at, now) / 1000) * 1000), "pollTasks")
    .catch((error: unknown) => log.warn("could not schedule a task poll", { error: errorMessage(error) }));
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

/** The shortest wait between a young task's polls: a server's shorter pollIntervalMs is raised to it. */
export const TASK_POLL_FLOOR_MS = 250;
/** The floor never rises past this (a server's longer interval is kept). */
const OLD_TASK_FLOOR_MS = 5_000;

/**
 * The shortest wait between polls of a task `ageMs` old: 250 ms at first, then a fortieth of
 * its age, up to 5 s. Each poll is a tasks/get and a row write: a day-long task at a server's
 * 100 ms would cost hundreds of thousands of them, while what the floor adds to the wait for
 * its answer stays under 2.5% of the time the task ran.
 */
export function taskPollFloorMs(ageMs: number): number {
  return Math.min(OLD_TASK_FLOOR_MS, Math.max(TASK_POLL_FLOOR_MS, Math.round(ageMs / 40)));
}

/** A poll due sooner than this also gets a timer of this wake: the alarm keeps whole seconds. */
const SOON_MS = 2_000;

export interface TaskWakeDeps {
  /** The object's alarm: `pollTasks` at `at` or earlier (wakeForTasks). */
  alarm: (at: number) => void;
  poll: () => Promise<void>;
  now: () => number;
  log: Logger;
}

/**
 * Asks for a poll at `at`: always the object's alarm (durable; agents keeps whole seconds, so
 * a 250 ms interval would wait 1-2 s), and for a poll due within SOON_MS a timer of this wake
 * as well, which polls on time while the object is in memory. A restart loses the timer,
 * never the alarm; an alarm that finds nothing due sets the next one and returns.
 */
export class TaskWake {
  private soon?: { at: number; timer: ReturnType<typeof setTimeout> };

  constructor(private readonly deps: TaskWakeDeps) {}

  at(at: number): void {
    this.deps.alarm(at);
    const delay = at - this.deps.now();
    if (delay >= SOON_MS || (this.soon && this.soon.at <= at)) return;
    if (this.soon) clearTimeout(this.soon.timer);
    const timer = setTimeout(
      () => {
        this.soon = undefined;
        void this.deps.poll().catch((error: unknown) => this.deps.log.info("task poll failed", { error: errorMessage(error) }));
      },
      Math.max(0, delay),
    );
    this.soon = { at, timer };
  }
}
