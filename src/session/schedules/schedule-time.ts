// When a schedule runs: the grammar a person types ("weekdays 08:00", "every 6 hours",
// "once 2026-12-24 18:00", "cron 15 7 * * 1"), its canonical text, and the next instant it is
// due in its IANA zone across daylight-saving changes. cron-schedule (the copy agents uses)
// computes in the runtime's local time; in workerd that is UTC, so wall-clock times of the
// zone are handled as UTC dates and turned into instants here. Only ever run in workerd.
import { type Cron, parseCronExpression } from "cron-schedule";
import { EdgehostError, type FieldIssue } from "../../shared/errors";

/** A schedule's time as stored: a cron of wall-clock fields, or one wall-clock moment, in a zone. */
export interface ScheduleTime {
  /** Canonical text, shown back to the person ("weekdays 08:00"). */
  spec: string;
  cron: string | null;
  /** `YYYY-MM-DDTHH:MM`, wall clock of `timeZone`. */
  onceAt: string | null;
  timeZone: string;
}

/** The fewest minutes between two runs of one schedule (a cron every minute is a loop, not a schedule). */
export const MIN_INTERVAL_MINUTES = 60;

export class ScheduleInvalidError extends EdgehostError {
  readonly code = "schedule_invalid";
  constructor(readonly issues: FieldIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  }
  override toPublic() {
    return { ...super.toPublic(), issues: this.issues };
  }
}

export class ScheduleTooFrequentError extends EdgehostError {
  readonly code = "schedule_too_frequent";
  constructor(spec: string, minutes: number) {
    super(`"${spec}" would run ${minutes} min apart; schedules run at most every ${MIN_INTERVAL_MINUTES} min`);
  }
}

const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
/** Day lists are shown Monday first, as people read a week. */
const WEEK_ORDER = [1, 2, 3, 4, 5, 6, 0];
const EVERY_HOURS = [2, 3, 4, 6, 8, 12];
const MINUTE = 60_000;
const DAY = 86_400_000;

const invalid = (path: string, message: string) => new ScheduleInvalidError([{ path, message }]);

function clock(text: string): { h: number; m: number } {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!match) throw invalid("when", `"${text}" is not a time of day (HH:MM, 00:00-23:59)`);
  return { h: Number(match[1]), m: Number(match[2]) };
}

const hhmm = (t: { h: number; m: number }) => `${String(t.h).padStart(2, "0")}:${String(t.m).padStart(2, "0")}`;

/** The zone's canonical name, or a schedule_invalid naming it. */
export function checkZone(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat("en", { timeZone }).resolvedOptions().timeZone;
  } catch {
    throw invalid("timeZone", `"${timeZone}" is not an IANA time zone (e.g. Europe/Berlin)`);
  }
}

function dayList(text: string): number[] | undefined {
  const names = text.split(",").map((d) => d.trim().slice(0, 3));
  const days = names.map((d) => DAYS.indexOf(d as (typeof DAYS)[number]));
  if (days.length === 0 || days.some((d) => d < 0)) return undefined;
  return WEEK_ORDER.filter((d) => days.includes(d));
}

/** `when` → canonical spec plus cron or one-off wall time (zone not yet checked). */
function grammar(when: string): { spec: string; cron: string | null; onceAt: string | null } {
  const text = when.trim().toLowerCase().replace(/\s+/g, " ");
  const [head = "", ...rest] = text.split(" ");
  const tail = rest.join(" ");
  const daily = (days: string, cronDays: string) => {
    const t = clock(tail);
    return { spec: `${days} ${hhmm(t)}`, cron: `${t.m} ${t.h} * * ${cronDays}`, onceAt: null };
  };
  if (head === "daily") return daily("daily", "*");
  if (head === "weekdays") return daily("weekdays", "1-5");
  if (head === "weekends") return daily("weekends", "0,6");
  if (text === "hourly") return { spec: "hourly", cron: "0 * * * *", onceAt: null };
  const every = /^every (\d+) hours?$/.exec(text);
  if (every) {
    const n = Number(every[1]);
    if (!EVERY_HOURS.includes(n)) throw invalid("when", `every N hours takes N from ${EVERY_HOURS.join(", ")}`);
    return { spec: `every ${n} hours`, cron: `0 */${n} * * *`, onceAt: null };
  }
  if (head === "once") {
    const match = /^(\d{4})-(\d{2})-(\d{2})[ t](\d{1,2}:\d{2})$/.exec(tail);
    if (!match) throw invalid("when", "once takes a date and time: once YYYY-MM-DD HH:MM");
    const t = clock(match[4] ?? "");
    const [y, mo, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const date = new Date(Date.UTC(y, mo - 1, d));
    if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) throw invalid("when", `${tail} is not a date`);
    const at = `${match[1]}-${match[2]}-${match[3]}T${hhmm(t)}`;
    return { spec: `once ${at.replace("T", " ")}`, cron: null, onceAt: at };
  }
  if (head === "cron") {
    const fields = tail.split(" ");
    if (fields.length !== 5) throw invalid("when", "cron takes 5 fields: minute hour day-of-month month day-of-week");
    try {
      parseCronExpression(tail);
    } catch (error) {
      throw invalid("when", `not a cron expression: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { spec: `cron ${tail}`, cron: tail, onceAt: null };
  }
  const days = dayList(head);
  if (days) {
    const t = clock(tail);
    return { spec: `${days.map((d) => DAYS[d]).join(",")} ${hhmm(t)}`, cron: `${t.m} ${t.h} * * ${days.join(",")}`, onceAt: null };
  }
  throw invalid(
    "when",
    `"${when.slice(0, 60)}" is not a schedule: try daily HH:MM, weekdays HH:MM, weekends HH:MM, mon,wed HH:MM, hourly, every N hours, once YYYY-MM-DD HH:MM, or cron <5 fields>`,
  );
}

/**
 * Parses and checks a schedule: grammar, zone, a `once` still ahead of `now`, and at least
 * MIN_INTERVAL_MINUTES between its next runs. Throws ScheduleInvalidError or ScheduleTooFrequentError.
 */
export function parseSchedule(when: string, timeZone: string, now = Date.now()): ScheduleTime {
  const zone = checkZone(timeZone);
  const parsed = { ...grammar(when), timeZone: zone };
  const first = nextRun(parsed, now);
  if (first === null) throw invalid("when", `${parsed.spec} (${zone}) is in the past`);
  if (parsed.cron !== null) {
    // 24 runs ahead covers any pattern a day repeats (a cron's fields are ≤ a day apart within a day).
    let prev = first;
    for (let i = 0; i < 24; i++) {
      const next = nextRun(parsed, prev);
      if (next === null) break;
      const gap = Math.round((next - prev) / MINUTE);
      if (gap < MIN_INTERVAL_MINUTES) throw new ScheduleTooFrequentError(parsed.spec, gap);
      prev = next;
    }
  }
  return parsed;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `zone` at `instant`, as the UTC ms of those same fields (seconds kept). */
export function wallOf(instant: number, zone: string): number {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, format);
  }
  const p: Record<string, number> = {};
  for (const part of format.formatToParts(instant)) if (part.type !== "literal") p[part.type] = Number(part.value);
  return Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
}

/**
 * The instant a wall-clock time of `zone` happens: the earlier one when it happens twice
 * (autumn), and for a time that does not exist (the spring gap) the same wall time with the
 * offset from before the change, i.e. shifted forward by the gap (02:30 → 03:30).
 */
export function instantOf(wall: number, zone: string): number {
  const before = wallOf(wall - DAY, zone) - (wall - DAY);
  const after = wallOf(wall + DAY, zone) - (wall + DAY);
  const real = [wall - before, wall - after].filter((t) => wallOf(t, zone) === wall).sort((a, b) => a - b);
  return real[0] ?? wall - before;
}

const crons = new Map<string, Cron>();

/** The first instant after `after` (ms) the schedule is due, or null (a `once` that has passed). */
export function nextRun(time: Pick<ScheduleTime, "cron" | "onceAt" | "timeZone">, after: number): number | null {
  if (time.onceAt !== null) {
    const at = instantOf(Date.parse(`${time.onceAt}:00Z`), time.timeZone);
    return at > after ? at : null;
  }
  if (time.cron === null) return null;
  let cron = crons.get(time.cron);
  if (!cron) {
    cron = parseCronExpression(time.cron);
    crons.set(time.cron, cron);
  }
  // Walk wall times after the zone's clock at `after`; an instant can come out at or before
  // `after` only in the autumn overlap (the wall hour repeats), then the next wall time is taken.
  let wall = wallOf(after, time.timeZone);
  for (let i = 0; i < 4; i++) {
    // getNextDate counts its start itself (whole seconds): a second later is strictly after.
    wall = cron.getNextDate(new Date(wall + 1000)).getTime();
    const at = instantOf(wall, time.timeZone);
    if (at > after) return at;
  }
  return null;
}
