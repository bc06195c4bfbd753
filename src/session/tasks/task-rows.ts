// The tasks a session holds (MCP Tasks extension, src/mcp/tasks.ts), in its Durable
// Object's SQLite: which server and tool, the server's task id, the tool call it answers,
// its last state, when to ask next, and its deadline. A row lives from the CreateTaskResult
// until its outcome reached the model (the waiting turn, or a follow-up turn), so a restart
// loses nothing: the object's alarm reads the rows again. Rows are parsed (zod) when read.
import { z } from "zod";
import { TaskStatusSchema } from "../../mcp/tasks";

export const TaskRowSchema = z.object({
  callId: z.string(),
  turnId: z.string().nullable(),
  server: z.string(),
  tool: z.string(),
  taskId: z.string(),
  status: TaskStatusSchema,
  statusMessage: z.string().nullable(),
  pollIntervalMs: z.number().nullable(),
  polls: z.number(),
  nextPollAt: z.number(),
  deadlineAt: z.number(),
  createdAt: z.number(),
  /** The outcome once the task ended, kept until it reached the model (JSON: a CallToolResult or `{ error }`). */
  outcome: z.string().nullable(),
});
export type TaskRow = z.infer<typeof TaskRowSchema>;

type SqlRow = Record<string, SqlStorageValue>;

export class TaskRows {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS session_tasks (
      call_id TEXT PRIMARY KEY,
      turn_id TEXT,
      server TEXT NOT NULL,
      tool TEXT NOT NULL,
      task_id TEXT NOT NULL,
      status TEXT NOT NULL,
      status_message TEXT,
      poll_interval_ms INTEGER,
      polls INTEGER NOT NULL,
      next_poll_at INTEGER NOT NULL,
      deadline_at INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      outcome TEXT
    )`);
  }

  insert(row: TaskRow): void {
    this.sql.exec(
      `INSERT INTO session_tasks (call_id, turn_id, server, tool, task_id, status, status_message, poll_interval_ms, polls, next_poll_at, deadline_at, created_at, outcome)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.callId,
      row.turnId,
      row.server,
      row.tool,
      row.taskId,
      row.status,
      row.statusMessage,
      row.pollIntervalMs,
      row.polls,
      row.nextPollAt,
      row.deadlineAt,
      row.createdAt,
      row.outcome,
    );
  }

  /** Writes a row's changing fields (state, schedule, outcome). */
  update(row: TaskRow): void {
    this.sql.exec(
      "UPDATE session_tasks SET status = ?, status_message = ?, poll_interval_ms = ?, polls = ?, next_poll_at = ?, outcome = ? WHERE call_id = ?",
      row.status,
      row.statusMessage,
      row.pollIntervalMs,
      row.polls,
      row.nextPollAt,
      row.outcome,
      row.callId,
    );
  }

  delete(callId: string): void {
    this.sql.exec("DELETE FROM session_tasks WHERE call_id = ?", callId);
  }

  get(callId: string): TaskRow | undefined {
    return this.read("SELECT * FROM session_tasks WHERE call_id = ?", callId)[0];
  }

  all(): TaskRow[] {
    return this.read("SELECT * FROM session_tasks ORDER BY created_at");
  }

  /** Rows whose next poll, or whose deadline, is due at `now`. */
  due(now: number): TaskRow[] {
    return this.read("SELECT * FROM session_tasks WHERE next_poll_at <= ? OR deadline_at <= ? ORDER BY next_poll_at", now, now);
  }

  /** When the earliest poll is due, or undefined with no rows. */
  nextDue(): number | undefined {
    return this.sql.exec<{ at: number | null }>("SELECT MIN(next_poll_at) AS at FROM session_tasks").one().at ?? undefined;
  }

  /** Tasks not yet ended (what the cap counts). */
  running(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM session_tasks WHERE outcome IS NULL").one().n;
  }

  clear(): void {
    this.sql.exec("DELETE FROM session_tasks");
  }

  private read(query: string, ...bindings: SqlStorageValue[]): TaskRow[] {
    return this.sql
      .exec<SqlRow>(query, ...bindings)
      .toArray()
      .map((r) =>
        TaskRowSchema.parse({
          callId: r.call_id,
          turnId: r.turn_id,
          server: r.server,
          tool: r.tool,
          taskId: r.task_id,
          status: r.status,
          statusMessage: r.status_message,
          pollIntervalMs: r.poll_interval_ms,
          polls: r.polls,
          nextPollAt: r.next_poll_at,
          deadlineAt: r.deadline_at,
          createdAt: r.created_at,
          outcome: r.outcome,
        }),
      );
  }
}
