// What an idle chat with one schedule costs a day (issue 39, docs/schedules.md), lived in
// workerd with the clock moved (schedule-days.ts) and every write metered where the platform
// counts it (storage-meter.ts). Bounds from the design, not from a run:
// - a day without a due run wakes the chat 0 times and writes nothing anywhere;
// - a day with one run wakes it once, for agents' runSchedules job only;
// - that wake writes the run's turn (no more than the same turn typed on an open page) plus
//   the schedule's bookkeeping, SCHEDULE_BOOKKEEPING below.
// frank: no servers, no push devices (nothing else of his counts these objects' rows). Each
// wake waits up to two real seconds for the turn's usage report (schedule-days.ts settle), hence
// the longer timeout.
import { afterEach, beforeEach, describe, expect, inject, it, vi } from "vitest";
import { billedRows, type StorageCounts, sum } from "../storage-meter";
import { DAY_MS, done, idleChatWith, liveDay } from "./schedule-days";

const llm = inject("fakeLlmUrl");
const KEY = inject("sessionLlmKey");

beforeEach(async () => {
  await fetch(`${llm}/__script/${KEY}`, { method: "DELETE" });
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * A run's bookkeeping in the chat, on top of its turn (src/session/schedules/, agents' job queue):
 * - `schedules`: the row advanced before the turn starts, its outcome written when it ends (2);
 * - agents' job rows: the due job marked running and deleted once it returned, the next run's job
 *   written (3); two keepAliveWhile scopes, each a heartbeat job written and deleted (4): the
 *   alarm's runSchedules and the run's end told to the owner's account (session-parts.ts
 *   notices, `schedule_done`). The turn itself takes none: it is shorter than KEEP_ALIVE_GRACE_MS;
 * - alarm sets: agents re-arms the alarm on each of those 7 job changes, and pre-arms its deadman once (8).
 */
const SCHEDULE_BOOKKEEPING = { schedules: 2, jobs: 7, alarmSets: 8 };
const JOBS = "cf_agents_jobs";
const LONG = { timeout: 120_000 };

/** The rows a turn itself wrote in the chat: everything but the schedule's and agents' bookkeeping. */
const turnRows = (c: StorageCounts) => billedRows(c) - (c.sqlWritten.schedules ?? 0) - (c.sqlWritten[JOBS] ?? 0) - c.alarmSets;
/** A time of day 12 hours from now: the first run is never due while the test sets up. */
const farHour = () => `${String((new Date().getUTCHours() + 12) % 24).padStart(2, "0")}:00`;
const nothing = (c: StorageCounts) => sum(c.sqlWritten) + c.kvKeys + c.alarmSets + c.alarmDeletes;

describe("an idle chat with one schedule, a day", () => {
  it("daily: one wake a day, for its run, writing the run's turn plus the schedule's bookkeeping", LONG, async () => {
    const chat = await idleChatWith("frank", { when: `daily ${farHour()}`, timeZone: "UTC", text: "summarise new files" });
    const first = Math.floor(chat.firstRun / DAY_MS) * DAY_MS;
    for (let d = 0; d < 3; d++) {
      const day = await liveDay(chat, first + d * DAY_MS);
      expect(day.wakes.map((w) => new Date(w.at).toISOString())).toEqual([new Date(chat.firstRun + d * DAY_MS).toISOString()]);
      const [wake] = day.wakes;
      if (!wake) throw new Error("no wake");
      expect(wake.jobs).toEqual(["runSchedules"]);
      expect(wake.chat.sqlWritten.schedules).toBe(SCHEDULE_BOOKKEEPING.schedules);
      expect(wake.chat.sqlWritten[JOBS]).toBeLessThanOrEqual(SCHEDULE_BOOKKEEPING.jobs);
      expect(wake.chat.alarmSets).toBeLessThanOrEqual(SCHEDULE_BOOKKEEPING.alarmSets);
      expect(turnRows(wake.chat)).toBeLessThanOrEqual(turnRows(chat.typedTurn.chat));
      // Nothing is written between wakes.
      expect(billedRows(day.chat)).toBe(billedRows(wake.chat));
    }
    await done(chat);
  });

  it("weekdays: a week wakes it 5 times, and a weekend day costs nothing at all", LONG, async () => {
    const chat = await idleChatWith("frank", { when: `weekdays ${farHour()}`, timeZone: "UTC", text: "summarise new files" });
    const first = Math.floor(chat.firstRun / DAY_MS) * DAY_MS;
    const week = [];
    for (let d = 0; d < 7; d++) week.push({ weekday: new Date(first + d * DAY_MS).getUTCDay(), day: await liveDay(chat, first + d * DAY_MS) });
    expect(week.map((w) => w.day.wakes.length)).toEqual(week.map((w) => (w.weekday === 0 || w.weekday === 6 ? 0 : 1)));
    for (const { day } of week.filter((w) => w.day.wakes.length === 0)) {
      expect(nothing(day.chat)).toBe(0);
      expect(nothing(day.account)).toBe(0);
      expect(nothing(day.operations)).toBe(0);
    }
    await done(chat);
  });
});
