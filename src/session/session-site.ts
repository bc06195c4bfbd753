// What a chat session's parts (session-parts.ts) need of the Durable Object that holds
// them: its sockets, keep-alive, the history frame and its alarms.
import type { Env } from "../config/env";
import type { ServerMessage } from "../protocol/messages";
import type { Logger } from "../shared/logger";
import type { NewEntry, StoredEntry } from "./history";

/** What the parts need of the Durable Object that holds them. */
export interface SessionSite {
  readonly env: Env;
  readonly ctx: DurableObjectState;
  /** The session's id (read late: the object learns its name after construction). */
  name(): string;
  readonly log: Logger;
  sendAll(message: ServerMessage): void;
  keepAliveWhile<T>(work: () => Promise<T>): Promise<T>;
  keepAliveAfter<T>(graceMs: number, work: () => Promise<T>): Promise<T>;
  record(entry: NewEntry): StoredEntry;
  historyFrame(): ServerMessage;
  /** Servers changed: one left unavailable is retried while a page watches. */
  watchUnavailable(): void;
  /** The object's alarm calls the held tasks' poll at `at` (ms) or earlier (tasks/task-alarm.ts). */
  wakeForTasks(at: number): void;
  /** People with a visible page on this chat (notify/presence-watch.ts). */
  visibleUsers(): Set<string>;
  /** The user ids of the people this chat is shared with as approvers (people/members.ts). */
  approvers?(): string[];
  /** A scheduled run's pre-granted tools: true when turn `turnId` may call `server.tool` without asking (schedules/). */
  granted?(turnId: string, server: string, tool: string): boolean;
  /** How long a question of turn `turnId` waits (ms): a scheduled run's SCHEDULE_APPROVAL_WAIT_MINUTES; undefined: the usual. */
  questionWaitMs?(turnId: string | undefined): number | undefined;
}
