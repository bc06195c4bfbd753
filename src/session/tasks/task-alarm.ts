// When a session's held tasks are polled next: one agents schedule of "pollTasks", the
// earliest one due. The object's own alarm is agents' (its expiry and server-retry
// schedules share it); each schedule is a row of agents' table and one alarm wake. A poll
// due within a couple of seconds also gets a timer of the wake (TaskWake).
import { errorMessage, type Logger } from "../../shared/logger";
import { type AlarmScheduler, wakeAt } from "../alarm-wake";

export { keepNameForAlarms } from "../alarm-wake";

/** What the wake needs of the session's Agent. */
export type TaskScheduler = AlarmScheduler<"pollTasks">;

/** Makes sure `pollTasks` runs at `at` (ms) or earlier (alarm-wake's wakeAt). */
export function wakeForTasks(agent: TaskScheduler, at: number, log: Logger, now = Date.now()): void {
  wakeAt(agent, "pollTasks", at, log, now);
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
