// The orchestrator's own vocabulary: what a turn records, what it reports while
// it runs, and the small port through which it talks to whoever hosts it (the
// chat session). Nothing here knows about WebSockets, storage or the protocol;
// the session maps these onto its history rows and wire messages.
import type { MediaPart, ToolCallRequest, UserPart } from "../llm/provider";

/** Something a turn adds to the conversation (the host stores it). */
export type TurnEntry =
  | { kind: "assistant"; text: string; toolCalls?: ToolCallRequest[]; partial?: boolean }
  | { kind: "tool_call"; callId: string; server: string; tool: string; arguments: Record<string, unknown> }
  | { kind: "tool_result"; callId: string; server: string; tool: string; durationMs: number; result?: unknown; error?: string }
  | { kind: "notice"; text: string };

/** A stored conversation entry as the orchestrator reads it back (any row with these fields). */
export interface TranscriptEntry {
  kind: string;
  text?: string;
  callId?: string;
  /** A tool call's or result's server and tool (which tools the conversation used: tool-selection.ts). */
  server?: string;
  tool?: string;
  toolCalls?: ToolCallRequest[];
  result?: unknown;
  error?: string;
  /** A user entry's attached contents (resources, a prompt's media), joined in by the host. */
  parts?: UserPart[];
}

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** Where a tool call of the running turn stands. */
export interface ToolStatus {
  callId: string;
  server: string;
  tool: string;
  state: "processing" | "progress" | "complete" | "error";
  arguments?: Record<string, unknown>;
  result?: unknown;
  error?: string;
  durationMs?: number;
  progress?: ToolProgress;
  /** A completed call's images and audio, for the page to show (never stored). */
  media?: MediaPart[];
}

export interface ApprovalQuestion {
  callId: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/**
 * Whether a tool call may run and how that was decided (approval/decision.ts): without asking
 * (TOOL_APPROVAL off, mcp.json's alwaysAllow, a turn grant, the chat's always-allow, an argument
 * rule — which one), or asked and answered.
 */
export interface ApprovalDecision {
  allowed: boolean;
  how: "policy_off" | "config" | "pre_granted" | "always" | "rule" | "asked";
  ruleId?: string;
  ruleText?: string;
  /** Only when asked: the person's answer, no answer in time, or cancelled (the turn stopped, the question went away). */
  answer?: "allowed" | "denied" | "timed_out" | "cancelled";
  /** Only when a person answered: who (a shared chat's approver; absent: the owner) and where (their page, a notification's action, an app's client). */
  by?: { key: string; name: string };
  via?: "page" | "notification" | "client";
}

/** How a call that reached a decision ended, for the audit trail (src/audit/record.ts). */
export type CallEnd = "ok" | "tool_error" | "error" | "denied" | "cancelled" | "timeout";

/**
 * One tool call that reached a decision, as the audit trail takes it: the arguments as the
 * model gave them and the result as the server sent it (before shortening), which the host
 * hashes and drops at once; never stored as they are.
 */
export interface CallAudit {
  callId: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  decision: ApprovalDecision;
  /** When the call was made (before any approval), and when it ended. */
  at: number;
  endedAt: number;
  /** The tool's own run time (0 when it did not run). */
  durationMs: number;
  result?: unknown;
  status: CallEnd;
  errorCode?: string;
}

/** How a turn reaches its host: every method is called in order, from the turn's own task. */
export interface TurnPort {
  record(entry: TurnEntry): void;
  text(messageId: string, delta: string): void;
  status(status: ToolStatus): void;
  /** Resolves allowed when the call may run (the host asks the user when its policy says so), and how. */
  approve(question: ApprovalQuestion): Promise<ApprovalDecision>;
  /** A call that reached a decision ended: called in the same tick as its `tool_result` entry. */
  audited?(call: CallAudit): void;
}

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
}

export type TurnEnd = "complete" | "cancelled" | "error" | "max_steps";
