// What the Worker and the sessions tell the operations object (Operations.ts), and what
// /admin reads back. Only what an operator needs: ids, names, codes, counts and
// durations; never a tool's arguments or results, a model's text, a header or a key.
import { z } from "zod";

/** One tool call of a turn, as the operator's per-tool metrics count it. */
export interface CallReport {
  server: string;
  tool: string;
  ms: number;
  ok: boolean;
  /** A failed call's error code (a tool that answered isError has none). */
  code?: string;
}

/** A server as the reporting session last saw it. */
export interface ServerReport {
  name: string;
  /** From mcp.json (shared by everyone), or one user's own (runtime server, machine). */
  deployment: boolean;
  state: string;
  lastError?: string;
}

/** How a turn ended, as the session's turn runner knows it. */
export interface TurnOutcomeReport {
  turnId: string;
  requestId?: string;
  reason: string;
  inputTokens: number;
  outputTokens: number;
  /** Set when the turn failed: its public code and message (what the user was shown). */
  error?: { code: string; message: string };
}

/** A turn that ended (with the tool calls made during it), or tool calls made without a turn (the Tool console). */
export interface SessionEvent {
  at: number;
  calls: CallReport[];
  turn?: TurnOutcomeReport;
  /** How the calls since the last report were decided, counted by kind (the audit trail's decisions; never what was called with what). */
  decisions?: Partial<Record<DecisionKind, number>>;
}

/** The kinds of decision /admin counts: how a call was allowed or refused (docs/audit.md). */
export const DECISION_KINDS = ["asked_allowed", "asked_denied", "timed_out", "cancelled", "rule", "always", "pre_granted", "config", "policy_off"] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** Sent by a session after turns end or console calls, at most every few seconds (operations-report.ts). */
export interface SessionReport {
  at: number;
  user: { id: string; name: string };
  session: string;
  /** What happened since the session's last report, oldest first. */
  events: SessionEvent[];
  servers: ServerReport[];
}

export type ErrorSource = "worker" | "session" | "tool";

/** One of "the last errors": a failed request, turn or tool call, with the ids to find its log lines. */
export const ErrorEventSchema = z.object({
  at: z.number(),
  source: z.enum(["worker", "session", "tool"]),
  code: z.string(),
  message: z.string(),
  requestId: z.string().nullable(),
  turnId: z.string().nullable(),
  user: z.string().nullable(),
  session: z.string().nullable(),
  server: z.string().nullable(),
  tool: z.string().nullable(),
});
export type ErrorEvent = z.infer<typeof ErrorEventSchema>;

export const ToolMetricsSchema = z.object({
  server: z.string(),
  tool: z.string(),
  calls: z.number(),
  errors: z.number(),
  meanMs: z.number().nullable(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
  maxMs: z.number().nullable(),
  lastAt: z.number(),
});

export const ServerHealthSchema = z.object({
  name: z.string(),
  /** null: a deployment server (mcp.json); else the user whose own server it is. */
  owner: z.string().nullable(),
  state: z.string(),
  lastError: z.string().nullable(),
  at: z.number(),
});

export const UserActivitySchema = z.object({
  id: z.string(),
  name: z.string(),
  firstSeen: z.number(),
  lastSeen: z.number(),
  turns: z.number(),
});

/** What Operations keeps; /admin adds each user's sessions and tokens today from their account. */
export const OperationsSnapshotSchema = z.object({
  users: z.array(UserActivitySchema),
  servers: z.array(ServerHealthSchema),
  tools: z.array(ToolMetricsSchema),
  errors: z.array(ErrorEventSchema),
  /** Tool calls by how they were decided, across the deployment: counts only. */
  decisions: z.partialRecord(z.enum(DECISION_KINDS), z.number()).default({}),
  /** Notifications dropped because their person reached PUSH_PER_HOUR (src/users/push-cap.ts), across the deployment. */
  pushesDropped: z.number().default(0),
});
export type OperationsSnapshot = z.infer<typeof OperationsSnapshotSchema>;
