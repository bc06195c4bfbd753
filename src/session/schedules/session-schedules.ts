// A chat's scheduled runs: made, listed, removed and resumed by its owner (src/http/schedules.ts),
// run on the object's alarm (one agents job "runSchedules" at the earliest due time, alarm-wake.ts),
// each run an ordinary turn (rate limit, budget and hold apply; schedule-runs.ts) whose opening says it was
// scheduled. The tools named at creation run without asking during that turn only (turn
// grants, read by approval/decision.ts through `granted`); any other call asks, and with nobody
// watching the chat that question is pushed (notify/away-notices.ts). Runs that fail
// SCHEDULE_MAX_FAILURES times in a row pause the schedule with a notice in the chat. The
// owner's devices hear of each run's end and of a pause (`told`, pushed when they are away).
import type { ScheduleView, ServerMessage } from "../../protocol/messages";
import { EdgehostError } from "../../shared/errors";
import { errorMessage } from "../../shared/logger";
import { type NewSchedule, type ScheduleRow, viewOf } from "./schedule-rows";
import type { ScheduleDeps } from "./schedule-deps";
import { ScheduleRuns, timeOf } from "./schedule-runs";
import { nextRun, parseSchedule } from "./schedule-time";

/** A run due this close to now runs now (the alarm keeps whole seconds). */
const DUE_SLACK_MS = 500;
/** The owner's access could not be checked: the due runs are tried again this much later. */
const ACCESS_RETRY_MS = 5 * 60_000;
/** The most tools one schedule may pre-grant. */
export const MAX_GRANTS = 10;

export class ScheduleToolUnknownError extends EdgehostError {
  readonly code = "schedule_tool_unknown";
}
export class TooManySchedulesError extends EdgehostError {
  readonly code = "too_many_schedules";
}
export class ScheduleUnknownError extends EdgehostError {
  readonly code = "schedule_unknown";
  constructor() {
    super("this chat has no schedule with that id");
  }
}

export interface NewScheduleInput {
  when: string;
  timeZone: string;
  text: string;
  grants: string[];
  label?: string;
}

export type { RunOutcome, ScheduleDeps, ScheduleNews, ScheduleSlotPort } from "./schedule-deps";

export class SessionSchedules {
  /** Each run from its alarm to its outcome (schedule-runs.ts). */
  private readonly runs: ScheduleRuns;

  constructor(private readonly deps: ScheduleDeps) {
    this.runs = new ScheduleRuns({ ...deps, drop: (id) => this.drop(id), changed: () => this.changed() });
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  list(): ScheduleView[] {
    return this.deps.rows.all().map(viewOf);
  }

  frame(): Extract<ServerMessage, { type: "schedules" }> {
    return { type: "schedules", items: this.list() };
  }

  /** Makes a schedule (checked: time, frequency, grants among the chat's tools now, the chat's cap). */
  async create(owner: string, input: NewScheduleInput): Promise<ScheduleView> {
    const now = this.now();
    const time = parseSchedule(input.when, input.timeZone, now);
    const { perChat } = this.deps.limits();
    if (this.deps.rows.count() >= perChat) throw new TooManySchedulesError(`this chat has ${perChat} schedules already: remove one first`);
    const grants = [...new Set(input.grants)];
    if (grants.length > MAX_GRANTS) throw new ScheduleToolUnknownError(`a schedule may run at most ${MAX_GRANTS} tools without asking`);
    if (grants.length > 0) {
      const offered = new Set(await this.deps.tools());
      const unknown = grants.filter((g) => !offered.has(g));
      if (unknown.length > 0) throw new ScheduleToolUnknownError(`this chat offers no tool ${unknown.map((u) => `"${u.slice(0, 80)}"`).join(", ")} now`);
    }
    const id = crypto.randomUUID();
    const slots = this.deps.slots?.();
    const slot = await slots?.reserve(
      id,
      this.deps.rows.all().map((r) => r.id),
    );
    if (slot && !slot.ok) throw new TooManySchedulesError(`you have ${slot.limit} schedules across your chats already: remove one first`);
    const row: NewSchedule = {
      id,
      created_by: owner,
      spec: time.spec,
      cron: time.cron,
      once_at: time.onceAt,
      time_zone: time.timeZone,
      text: input.text,
      grants,
      label: input.label ?? null,
      next_at: nextRun(time, now),
      created_at: now,
    };
    this.deps.rows.add(row);
    this.changed();
    this.deps.log.info("schedule made", { schedule: row.id, spec: row.spec, timeZone: row.time_zone, grants: grants.length });
    const made = this.deps.rows.get(row.id);
    if (!made) throw new ScheduleUnknownError();
    return viewOf(made);
  }

  remove(id: string): void {
    if (!this.drop(id)) throw new ScheduleUnknownError();
    this.changed();
  }

  /** A paused schedule runs again from its next time, its failures forgotten. */
  resume(id: string): ScheduleView {
    const row = this.deps.rows.get(id);
    if (!row) throw new ScheduleUnknownError();
    const now = this.now();
    this.deps.rows.update(id, { paused: null, failures: 0, next_at: nextRun(timeOf(row), now) });
    this.changed();
    return viewOf(this.deps.rows.get(id) ?? row);
  }

  /** The chat is deleted: every row goes, and the alarm job with it. */
  forget(): void {
    this.deps.rows.clear();
    this.runs.clear();
    this.deps.wake(undefined);
    this.released(undefined);
  }

  /** Whether `server.tool` was pre-granted to the turn `turnId` (a scheduled run); null turns (console, apps) never are. */
  granted(turnId: string | null, server: string, tool: string): boolean {
    return this.runs.granted(turnId, server, tool);
  }

  /** Whether turn `turnId` is a scheduled run (its questions wait longer). */
  isRun(turnId: string): boolean {
    return this.runs.isRun(turnId);
  }

  /** What the session broadcasts: a scheduled turn's end counts for its schedule. */
  heard(message: ServerMessage): void {
    this.runs.heard(message);
  }

  /** The alarm: runs every due schedule (one turn at a time), then sets the next wake. Never throws. */
  async run(now = this.now()): Promise<void> {
    try {
      const due = this.deps.rows.due(now + DUE_SLACK_MS);
      if (due.length > 0 && (await this.ownerMayRun(due, now))) for (const row of due) await this.runs.runOne(row, now);
    } catch (error) {
      this.deps.log.error("scheduled runs failed", { error: errorMessage(error) });
    } finally {
      this.changed();
    }
  }

  /**
   * The owner lost access: every schedule of the chat goes, with a notice saying why. Not known
   * (the check could not be made): nothing runs or goes now, the due runs are tried again later.
   */
  private async ownerMayRun(due: ScheduleRow[], now: number): Promise<boolean> {
    const access = (await this.deps.ownerAccess?.()) ?? { may: "yes" };
    if (access.may === "yes") return true;
    if (access.may === "unknown") {
      for (const row of due) this.deps.rows.update(row.id, { next_at: now + ACCESS_RETRY_MS });
      this.deps.log.warn("scheduled runs put off: the owner's access could not be checked", { due: due.length });
      return false;
    }
    const all = this.deps.rows.all();
    for (const row of all) this.drop(row.id);
    this.deps.log.warn("schedules removed: the owner lost access", { removed: all.length });
    this.deps.notice(`${all.length === 1 ? "This chat's schedule was" : `This chat's ${all.length} schedules were`} removed: ${access.why}.`);
    return false;
  }

  /** A schedule goes: its row, and its slot in the owner's account. */
  private drop(id: string): boolean {
    if (!this.deps.rows.remove(id)) return false;
    this.released(id);
    return true;
  }

  /** In the background: a release lost on the way is mended at the chat's next reservation (schedule-slots.ts). */
  private released(id: string | undefined): void {
    this.deps
      .slots?.()
      ?.release(id)
      .catch((error) => this.deps.log.warn("schedule slot not released", { error: errorMessage(error) }));
  }

  /** The list changed: pages hear it, and the alarm is set to the earliest due run. */
  private changed(): void {
    this.deps.broadcast(this.frame());
    this.deps.wake(this.deps.rows.earliest());
  }
}
