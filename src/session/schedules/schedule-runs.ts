// A scheduled run, from its alarm to its outcome (session-schedules.ts hands each due row
// here): the row advanced before the turn starts (a crash mid-run never runs it twice), the
// turn started as an ordinary one, its end counted for the schedule (failures in a row pause
// it with a notice), and the owner's devices told how it ended or that it paused. Also the
// running scheduled turns and the tools each may call without asking (turn grants).
import type { ServerMessage } from "../../protocol/messages";
import type { RunOutcome, ScheduleDeps } from "./schedule-deps";
import type { ScheduleRow } from "./schedule-rows";
import { nextRun } from "./schedule-time";

/** A turn running when a run is due: tried again this much later… */
const BUSY_RETRY_MS = 60_000;
/** …until it is this late, then skipped to its next time (not a failure). */
const BUSY_GIVE_UP_MS = 15 * 60_000;

/** A turn's end as the session broadcasts it. */
type TurnEnd = Extract<ServerMessage, { type: "turn_end" }>["reason"];

export interface ScheduleRunDeps extends Pick<ScheduleDeps, "rows" | "start" | "running" | "notice" | "told" | "limits" | "log"> {
  /** A schedule goes, with its slot in the owner's account (a `once` that ran, one with no next time). */
  drop: (id: string) => boolean;
  /** The list changed: pages hear it, and the alarm is set to the earliest due run. */
  changed: () => void;
}

/** A row's time as schedule-time.ts reads it. */
export function timeOf(row: ScheduleRow) {
  return { cron: row.cron, onceAt: row.once_at, timeZone: row.time_zone };
}

export class ScheduleRuns {
  /** Running scheduled turns: their schedule and the tools they may call without asking. */
  private readonly turns = new Map<string, { id: string; grants: Set<string> }>();

  constructor(private readonly deps: ScheduleRunDeps) {}

  /** Whether `server.tool` was pre-granted to the turn `turnId` (a scheduled run); null turns (console, apps) never are. */
  granted(turnId: string | null, server: string, tool: string): boolean {
    return turnId !== null && (this.turns.get(turnId)?.grants.has(`${server}.${tool}`) ?? false);
  }

  /** Whether turn `turnId` is a scheduled run (its questions wait longer). */
  isRun(turnId: string): boolean {
    return this.turns.has(turnId);
  }

  /** The chat is deleted: no run of it is counted any more. */
  clear(): void {
    this.turns.clear();
  }

  /** What the session broadcasts: a scheduled turn's end counts for its schedule. */
  heard(message: ServerMessage): void {
    if (message.type !== "turn_end") return;
    const turn = this.turns.get(message.turnId);
    if (!turn) return;
    this.turns.delete(message.turnId);
    this.ended(turn.id, message.turnId, message.reason);
  }

  /** Runs one due schedule now (or puts it off while a turn runs). */
  async runOne(row: ScheduleRow, now: number): Promise<void> {
    const late = now - (row.next_at ?? now);
    if (this.deps.running()) {
      if (late < BUSY_GIVE_UP_MS) this.deps.rows.update(row.id, { next_at: now + BUSY_RETRY_MS });
      else this.advance(row, now, "skipped: a turn was running");
      return;
    }
    // Advanced and written before the turn starts: a crash mid-run never runs it twice.
    this.advance(row, now);
    this.deps.log.info("schedule fired", { schedule: row.id, spec: row.spec, at: now, lateMs: late });
    const started = await this.deps.start({ text: row.text, scheduled: { id: row.id, spec: row.spec } });
    if ("refused" in started) {
      if (this.failed(row.id, `not started: ${started.refused.message}`)) this.deps.told?.({ kind: "schedule_paused", ref: row.id });
      return;
    }
    this.turns.set(started.turnId, { id: row.id, grants: new Set(row.grants) });
  }

  /** To the next time (a `once` is removed), counting the run. */
  private advance(row: ScheduleRow, now: number, outcome?: string): void {
    if (row.once_at !== null && outcome === undefined) {
      this.deps.drop(row.id);
      return;
    }
    const next = nextRun(timeOf(row), now);
    if (next === null) {
      this.deps.drop(row.id);
      return;
    }
    this.deps.rows.update(row.id, outcome ? { next_at: next, last_outcome: outcome } : { next_at: next, last_run_at: now, runs: row.runs + 1 });
  }

  private ended(id: string, turnId: string, reason: TurnEnd): void {
    // Stopped by a person: neither a success nor a failure.
    const outcome: RunOutcome = reason === "complete" ? "completed" : reason === "cancelled" ? "cancelled" : "failed";
    // A `once` (or a last run) was dropped as it started: nothing is left to count, but its
    // owner still hears how the run ended.
    const counted = this.deps.rows.get(id) !== undefined;
    let paused = false;
    if (counted) {
      if (outcome === "completed") this.deps.rows.update(id, { failures: 0, last_outcome: "completed" });
      else if (outcome === "cancelled") this.deps.rows.update(id, { last_outcome: "cancelled" });
      else paused = this.failed(id, reason === "max_steps" ? "stopped at the step limit" : reason === "no_model" ? "no model configured" : "the turn failed");
      this.deps.changed();
    }
    // One notification per run: the pause says the run failed too.
    this.deps.told?.(paused ? { kind: "schedule_paused", ref: id } : { kind: "schedule_done", ref: turnId, outcome }, turnId);
  }

  /** A failed run counted; true when it paused the schedule. */
  private failed(id: string, outcome: string): boolean {
    const row = this.deps.rows.get(id);
    if (!row) return false;
    const failures = row.failures + 1;
    const { maxFailures } = this.deps.limits();
    if (failures < maxFailures) {
      this.deps.rows.update(id, { failures, last_outcome: outcome });
      return false;
    }
    this.deps.rows.update(id, { failures, last_outcome: outcome, paused: "failures" });
    this.deps.log.warn("schedule paused", { schedule: id, failures });
    this.deps.notice(`Schedule “${row.spec}” paused after ${failures} failed runs (${outcome}). Resume it under Schedules.`);
    return true;
  }
}
