// What a session's turn runner is given (turn-runner.ts): the session's parts it calls, and
// who started a turn.
import type { Approvals } from "../approval/approvals";
import type { RuntimeConfig } from "../config/runtime-config";
import type { UserPart } from "../llm/provider";
import type { TurnUsage } from "../orchestrator/transcript";
import type { TurnOutcomeReport } from "../ops/reports";
import type { ServerMessage } from "../protocol/messages";
import type { Logger } from "../shared/logger";
import type { SpendDecision } from "../users/spend-ledger";
import type { HistoryStore, NewEntry, StoredEntry } from "./history";
import type { SessionMcp } from "./mcp/session-mcp";
import type { ResolvedModel } from "./session-model";
import type { SessionTasks } from "./tasks/session-tasks";
import type { AuditedCall } from "./audit-sink";
import type { Owner } from "./speakers";

export interface TurnRunnerDeps {
  store: HistoryStore;
  mcp: () => SessionMcp;
  approvals: Approvals;
  config: () => RuntimeConfig;
  /**
   * Counts a turn against the owner's limits (rate, and daily tokens unless it runs on the
   * owner's own key); the same call to the account reads the owner's servers for the turn.
   */
  admit: (ownKey: boolean) => Promise<SpendDecision>;
  /** The session's model for this turn (src/session/session-model.ts). */
  model: () => Promise<ResolvedModel>;
  /** The first message of a session titles it in the owner's list; every one marks activity. */
  touched: (text: string) => void;
  /** A finished turn's tokens; `ownKey`: spent on the owner's own key, so not on the deployment's budget. */
  used: (usage: TurnUsage, ownKey: boolean) => Promise<void>;
  record: (entry: NewEntry) => void;
  broadcast: (message: ServerMessage) => void;
  keepAliveWhile: <T>(work: () => Promise<T>) => Promise<T>;
  /** A user entry's attached contents for the model (src/session/attachments.ts). */
  attachedParts?: (entry: StoredEntry) => UserPart[] | undefined | Promise<UserPart[] | undefined>;
  log: Logger;
  /** A turn branched off (regenerate, edit): the conversation's path changed. */
  branched?: () => void;
  /** Tells the operator's view how the turn went (src/ops/Operations.ts); it never waits on the answer. */
  report?: (report: TurnOutcomeReport) => void;
  /** The owner's own instructions and the chat's preset, as the turn's admission left them (personal-prompt.ts). */
  personal?: () => string | undefined;
  /** The chat's owner: in a chat others spoke in, messages go to the model under their authors' names (speakers.ts). */
  speakers?: () => Owner;
  /** Holds a call the server made a task (tasks/session-tasks.ts); without it the host waits in memory. */
  tasks?: () => Pick<SessionTasks, "hold">;
  /** The audit trail's sink (audit-sink.ts): each call that reached a decision, in the tick of its entry. */
  audit?: (call: AuditedCall) => void;
}

/** Who started a turn, for its log lines: the request id of the socket it came on. */
export interface TurnOrigin {
  requestId?: string;
  /** A new version of this turn (regenerate, edit): the new turn branches off beside it (turn-tree.ts). */
  branchOf?: string;
  /** A scheduled run's schedule: its calls are recorded as asked by it (the audit trail). */
  scheduleId?: string;
  /** Who sent the message, in a shared chat (absent: the owner): its calls are recorded as asked for them. Never logged. */
  author?: { key: string; name: string };
}
