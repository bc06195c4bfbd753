// A schedule's grammar and next run (src/session/schedules/schedule-time.ts) in workerd,
// where cron-schedule's local time is UTC as in production: zones with and without
// daylight saving, the spring gap (shifted forward) and the autumn overlap (earlier
// instant only), refusals with the field named.
import { describe, expect, it } from "vitest";
import { nextRun, parseSchedule, ScheduleInvalidError, ScheduleTooFrequentError } from "../../../src/session/schedules/schedule-time";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe("schedule grammar", () => {
  it("gives every form its canonical spec and cron", () => {
    const now = at("2026-06-01T00:00:00Z");
    const forms: [string, string, string | null][] = [
      ["Daily 7:05", "daily 07:05", "5 7 * * *"],
      ["weekdays 08:00", "weekdays 08:00", "0 8 * * 1-5"],
      ["WEEKENDS  10:30", "weekends 10:30", "30 10 * * 0,6"],
      ["fri,Mon,sun 7:00", "mon,fri,sun 07:00", "0 7 * * 1,5,0"],
      ["monday,wednesday 18:45", "mon,wed 18:45", "45 18 * * 1,3"],
      ["hourly", "hourly", "0 * * * *"],
      ["every 6 hours", "every 6 hours", "0 */6 * * *"],
      ["cron 15 7 * * 1", "cron 15 7 * * 1", "15 7 * * 1"],
      ["once 2030-01-02 3:04", "once 2030-01-02 03:04", null],
    ];
    for (const [when, spec, cron] of forms) {
      const parsed = parseSchedule(when, "Europe/Berlin", now);
      expect({ when, spec: parsed.spec, cron: parsed.cron }).toEqual({ when, spec, cron });
    }
    expect(parseSchedule("once 2030-01-02 03:04", "UTC", now).onceAt).toBe("2030-01-02T03:04");
  });

  it("refuses what is not a schedule, naming the field", () => {
    const now = at("2026-06-01T00:00:00Z");
    const refused = (when: string, zone = "UTC") => {
      try {
        parseSchedule(when, zone, now);
      } catch (error) {
        return error;
      }
      throw new Error(`${when} was accepted`);
    };
    for (const when of [
      "sometimes",
      "daily 25:00",
      "daily",
      "every 5 hours",
      "cron * * * *",
      "cron 0 0 8 * * *",
      "cron 99 8 * * *",
      "once 2026-02-30 08:00",
      "once 2026-05-31 23:00",
    ]) {
      const error = refused(when);
      expect(error, when).toBeInstanceOf(ScheduleInvalidError);
      expect((error as ScheduleInvalidError).issues[0]?.path, when).toBe("when");
    }
    const zone = refused("daily 08:00", "Mars/Olympus_Mons") as ScheduleInvalidError;
    expect(zone).toBeInstanceOf(ScheduleInvalidError);
    expect(zone.toPublic()).toMatchObject({ code: "schedule_invalid", issues: [{ path: "timeZone" }] });
    for (const when of ["cron * * * * *", "cron 0,30 * * * *", "cron 0,59 1 * * *"]) {
      const error = refused(when);
      expect(error, when).toBeInstanceOf(ScheduleTooFrequentError);
      expect((error as ScheduleTooFrequentError).code).toBe("schedule_too_frequent");
    }
  });
});

describe("next run", () => {
  const runs = (when: string, zone: string, from: string, count: number) => {
    const time = parseSchedule(when, zone, at(from));
    const out: (string | null)[] = [];
    let t = at(from);
    for (let i = 0; i < count; i++) {
      const next = nextRun(time, t);
      out.push(iso(next));
      if (next === null) break;
      t = next;
    }
    return out;
  };

  it("Berlin's spring gap runs 02:30 at 03:30 CEST, then back to 02:30", () => {
    expect(runs("daily 02:30", "Europe/Berlin", "2026-03-28T12:00:00Z", 2)).toEqual(["2026-03-29T01:30:00.000Z", "2026-03-30T00:30:00.000Z"]);
  });

  it("Berlin's autumn overlap runs 02:30 once, at the earlier instant", () => {
    expect(runs("daily 02:30", "Europe/Berlin", "2026-10-24T12:00:00Z", 2)).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
  });

  it("New York's weekdays 08:00 keeps the wall time across the change to EDT and skips the weekend", () => {
    expect(runs("weekdays 08:00", "America/New_York", "2026-03-06T12:00:00Z", 2)).toEqual(["2026-03-06T13:00:00.000Z", "2026-03-09T12:00:00.000Z"]);
  });

  it("Kolkata's half-hour offset", () => {
    expect(runs("daily 09:15", "Asia/Kolkata", "2026-06-01T00:00:00Z", 2)).toEqual(["2026-06-01T03:45:00.000Z", "2026-06-02T03:45:00.000Z"]);
  });

  it("a run due exactly now is not due again; every 6 hours in UTC", () => {
    expect(runs("every 6 hours", "UTC", "2026-06-01T06:00:00Z", 3)).toEqual([
      "2026-06-01T12:00:00.000Z",
      "2026-06-01T18:00:00.000Z",
      "2026-06-02T00:00:00.000Z",
    ]);
  });

  it("once runs once in its zone's wall time", () => {
    expect(runs("once 2026-07-01 09:00", "Europe/Berlin", "2026-06-01T00:00:00Z", 2)).toEqual(["2026-07-01T07:00:00.000Z", null]);
  });
});
