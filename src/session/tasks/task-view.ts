// What a held task looks like outside the session: its tool card's `task` frame, and the
// entry a follow-up turn opens with when the task ended with no turn waiting. That entry
// is the model's user message (the model answers it), marked with `task` so the page and
// the history show it as a note about the task, not as words the person wrote.
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { HistoryEntry, ServerMessage } from "../../protocol/messages";
import type { TaskRow } from "./task-rows";

/** How much of a task's result the follow-up entry carries. */
const FOLLOW_UP_CHARS = 8_000;

export type Outcome = { result: CallToolResult } | { error: string; code: "cancelled" | "task_deadline" | "protocol" };
export type TaskFrame = Extract<ServerMessage, { type: "task" }>;
/** The follow-up turn's opening entry: its text for the model, and which task it speaks of. */
export type FollowUpEntry = { text: string; task: NonNullable<HistoryEntry["task"]> };

export function frameOf(row: TaskRow): TaskFrame {
  return {
    type: "task",
    callId: row.callId,
    server: row.server,
    tool: row.tool,
    status: row.status,
    ...(row.statusMessage ? { message: row.statusMessage } : {}),
  };
}

/** Which call's task ended, and what it returned (text parts, else JSON), cut to a bound. */
export function followUpEntry(row: TaskRow, outcome: Outcome): FollowUpEntry {
  const failed = "error" in outcome || outcome.result.isError === true;
  return { text: followUpText(row, outcome), task: { server: row.server, tool: row.tool, callId: row.callId, outcome: failed ? "failed" : "completed" } };
}

function followUpText(row: TaskRow, outcome: Outcome): string {
  const head = `The task started by the ${row.server}.${row.tool} call (${row.callId}) has finished`;
  if ("error" in outcome) return `${head} without a result: ${outcome.error}`;
  const texts = outcome.result.content.flatMap((part) => (part.type === "text" ? [part.text] : []));
  const body = texts.length > 0 ? texts.join("\n") : JSON.stringify(outcome.result.structuredContent ?? outcome.result.content);
  const cut = body.length > FOLLOW_UP_CHARS ? `${body.slice(0, FOLLOW_UP_CHARS)}…[truncated]` : body;
  return `${head}${outcome.result.isError ? " with an error" : ""}. Its result:\n${cut}`;
}
