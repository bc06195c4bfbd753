// The typed errors of a session's tasks (codes in src/shared/error-codes.ts).
import { EdgehostError } from "../../shared/errors";

/** The owner has their most running tasks (TASKS_PER_USER, across their sessions): a new one is cancelled at its server instead. */
export class TaskLimitError extends EdgehostError {
  readonly code = "task_limit";
  constructor(
    readonly tool: string,
    readonly limit: number,
  ) {
    super(`${tool} started a task, but you already have ${limit} running tasks across your sessions: it was cancelled (wait for one to end, or cancel one)`);
  }
}

/** A task ran past the deadline a session waits for one: cancelled at its server. */
export class TaskDeadlineError extends EdgehostError {
  readonly code = "task_deadline";
  constructor(
    readonly tool: string,
    readonly deadlineMs: number,
  ) {
    super(`${tool}'s task did not end within ${Math.round(deadlineMs / 60_000)} minutes: it was cancelled`);
  }
}

/** A Cancel for a task this session does not hold. */
export class UnknownTaskError extends EdgehostError {
  readonly code = "unknown_task";
  constructor(readonly callId: string) {
    super(`No running task for call ${callId}`);
  }
}
