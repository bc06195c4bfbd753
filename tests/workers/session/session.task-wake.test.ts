// When a held task is polled next (src/session/tasks/task-alarm.ts TaskWake), in workerd: a
// poll due within two seconds runs on this wake's timer even when the object's alarm (agents'
// whole-second schedule, stubbed here to never fire) would come later; a poll due later is
// left to the alarm alone. A server's poll interval is honoured down to 250 ms while the task is
// young, a floor that rises with its age.
import { describe, expect, it } from "vitest";
import { nextPollMs } from "../../../src/mcp/tasks";
import { silentLogger } from "../../../src/shared/logger";
import { TASK_POLL_FLOOR_MS, TaskWake, taskPollFloorMs } from "../../../src/session/tasks/task-alarm";

describe("a held task's next poll", () => {
  it("polls a poll due soon on this wake's timer, and asks the alarm for every one", async () => {
    const alarms: number[] = [];
    let polled: () => void = () => undefined;
    const poll = new Promise<void>((resolve) => (polled = resolve));
    const polls: number[] = [];
    const now = Date.now();
    const wake = new TaskWake({
      alarm: (at) => void alarms.push(at),
      poll: async () => {
        polls.push(1);
        polled();
      },
      now: () => now,
      log: silentLogger,
    });
    // Due in a minute: the alarm's business only.
    wake.at(now + 60_000);
    // Due in 300 ms: the timer polls (the alarm here never fires).
    wake.at(now + 300);
    await poll;
    expect(polls).toEqual([1]);
    expect(alarms).toEqual([now + 60_000, now + 300]);
  });

  it("honours a server's short poll interval down to 250 ms, and backs off from there without one", () => {
    expect(TASK_POLL_FLOOR_MS).toBe(250);
    expect(nextPollMs(100, 3, TASK_POLL_FLOOR_MS)).toBe(250);
    expect(nextPollMs(400, 3, TASK_POLL_FLOOR_MS)).toBe(400);
    expect(nextPollMs(undefined, 0, TASK_POLL_FLOOR_MS)).toBe(250);
    expect(nextPollMs(undefined, 2, TASK_POLL_FLOOR_MS)).toBe(1_000);
  });

  it("raises the floor as the task ages (a fortieth of its age, at most 5 s), so a long task is not polled four times a second", () => {
    expect(taskPollFloorMs(0)).toBe(250);
    expect(taskPollFloorMs(10_000)).toBe(250);
    expect(taskPollFloorMs(60_000)).toBe(1_500);
    expect(taskPollFloorMs(24 * 3_600_000)).toBe(5_000);
    expect(nextPollMs(100, 50, taskPollFloorMs(60_000))).toBe(1_500);
  });
});
