// ChatSession's ground floor: the session's parts (session-parts.ts), its logger, its
// apps' pending calls, and the helpers its sockets, RPC and alarms share (recording an
// entry, the history frame, connecting, retrying unavailable servers).
// The classes above it (ChatSession.ts lists them) hold the hooks and RPC methods; the
// fields live here only, since a field redeclared in a subclass would be set again.
import type { Env } from "../config/env";
import type { RuntimeConfig } from "../config/runtime-config";
import { deferredLogger, errorMessage, withFields, type Logger } from "../shared/logger";
import { ProtocolAgent } from "./agent-adapter";
import type { NewEntry, StoredEntry } from "./history";
import { historyPage } from "./history-pages";
import { type PersonRef, toWire, type ServerMessage } from "../protocol/messages";
import { AppCalls } from "./mcp-apps";
import { SessionParts } from "./session-parts";
import { wakeForTasks } from "./tasks/task-alarm";
import { visiblePeople } from "./notify/presence-watch";

export abstract class SessionCore extends ProtocolAgent<Env> {
  /** This wake checked that an expiry alarm exists (SESSION_TTL_DAYS). */
  protected expiryChecked = false;
  /** A background retry is scheduled (in memory: after a wake at worst one extra retry runs). */
  private retryScheduled = false;
  /** MCP Apps' tool calls waiting for approval or running (ended by a reset or delete). */
  protected readonly appCalls = new AppCalls((message) => this.sendAll(message));

  protected get runtime(): RuntimeConfig {
    return this.parts.runtime;
  }

  /** The session's parts (session-parts.ts), built on first use. */
  protected readonly parts: SessionParts = new SessionParts({
    env: this.env,
    ctx: this.ctx,
    name: () => this.name,
    log: deferredLogger(() => this.log),
    sendAll: (message) => this.sendAll(message),
    keepAliveWhile: (work) => this.keepAliveWhile(work),
    keepAliveAfter: (graceMs, work) => this.keepAliveAfter(graceMs, work),
    record: (entry) => this.record(entry),
    historyFrame: () => this.historyFrame(),
    watchUnavailable: () => this.watchUnavailable(),
    wakeForTasks: (at) => wakeForTasks(this, at, this.log),
    granted: (turnId, server, tool) => this.grantedToTurn(turnId, server, tool),
    questionWaitMs: (turnId) => this.questionWaitMs(turnId),
    visibleUsers: () => visiblePeople(this.openSockets()),
    approvers: () => this.approverIds(),
  });

  /**
   * This session's log lines: the Worker's logger with the session's id, its owner (read at
   * each line: a new session learns it) and, during a turn, the turn's id (the MCP host's
   * lines of a turn's tool calls carry it too).
   */
  protected readonly log: Logger = deferredLogger(() => {
    const turnId = this.parts.runningTurn;
    return withFields(this.runtime.logger, {
      component: "session",
      session: this.name,
      user: this.parts.owner.name ?? this.parts.owner.id,
      ...(turnId ? { turnId } : {}),
    });
  });

  /** Alarm callback the parts' task wake names (session-alarms.ts). */
  abstract pollTasks(): Promise<void>;

  /** A scheduled run's pre-granted tools (schedules/session-scheduling.ts), for the approvals' decision. */
  protected abstract grantedToTurn(turnId: string, server: string, tool: string): boolean;
  /** How long a question of turn `turnId` waits: a scheduled run's longer (schedules/session-scheduling.ts); undefined: the usual 10 min. */
  protected abstract questionWaitMs(turnId: string | undefined): number | undefined;
  /** The approvers this chat is shared with, by user id (people/session-people.ts): they are pushed its approvals too. */
  protected abstract approverIds(): string[];
  /**
   * Whether `user` may still answer this chat's approvals (a notification's token is checked
   * again at its use: a removed or demoted approver's does nothing); `by` names them in a shared chat.
   */
  protected abstract answererFor(user: string): { by?: PersonRef } | undefined;

  /**
   * While a page is open, an unavailable server is retried in the background (on the
   * host's backoff, through an alarm that survives hibernation), so the panel turns
   * ready when the server is back rather than at the next turn. Nobody watching: no retries.
   */
  protected watchUnavailable(): void {
    const connected = this.parts.connectedMcp;
    if (!connected || this.openSockets().length === 0) return;
    const waits = connected
      .host()
      .servers()
      .filter((s) => s.state === "unavailable")
      .map((s) => s.retryAfterMs ?? 0);
    if (waits.length === 0 || this.retryScheduled) return;
    // Not agents' `idempotent` schedule: it would match the retry that is running right
    // now (its row lives until the callback returns) and so never schedule the next one.
    this.retryScheduled = true;
    const seconds = Math.max(1, Math.ceil(Math.min(...waits) / 1000));
    void this.schedule(seconds, "retryUnavailable").catch((error: unknown) => {
      this.retryScheduled = false;
      this.log.warn("could not schedule a server retry", { error: errorMessage(error) });
    });
  }

  /** Alarm callback (see watchUnavailable); the reconnect broadcasts any state change. */
  async retryUnavailable(): Promise<void> {
    this.retryScheduled = false;
    const connected = this.parts.connectedMcp;
    if (!connected || this.openSockets().length === 0) return;
    await connected.host().reconnect();
    this.watchUnavailable();
  }

  protected record(entry: NewEntry): StoredEntry {
    const saved = this.parts.store.append(entry);
    this.sendAll({ type: "entry", entry: toWire.entry(saved) });
    return saved;
  }

  /** The newest part of the conversation's current path, its turns' tokens and versions (history-pages.ts). */
  protected historyFrame(): Extract<ServerMessage, { type: "history" }> {
    return { type: "history", ...historyPage(this.parts.store) };
  }

  /** The session's MCP connections opened (a server that failed is reported by its state, not thrown). */
  protected connected(): Promise<void> {
    return this.keepAliveWhile(() => this.parts.mcp.ensureConnected()).catch(() => undefined);
  }
}
