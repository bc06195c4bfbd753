// One Durable Object per user (named by the identity's id): the user's list of
// chat sessions, their spend (src/users/spend-ledger.ts) counted across all their sessions, the remote MCP servers they added at runtime, and their
// paired machines, whose bridges' sockets this object holds (src/machines/relay.ts),
// all kept across restarts in SQLite.
//
// Its RPC methods are spread over a chain of classes, one concern per file (Workers RPC
// exposes the methods a class inherits, as it does agents' on ChatSession):
//   account-base.ts      AccountBase      the stores (fields declared only there), ownerChanged, emptyShares
//   account-apps.ts      AccountApps      push devices and notices, apps connected to /mcp, their held approvals
//   account-sign-ins.ts  AccountSignIns   page logins, OAuth sign-ins to servers, own model providers, instructions and presets
//   account-servers.ts   AccountServers   paired machines (fetch, sockets), runtime servers, beginTurn
//   account-rules.ts     AccountRules     argument rules for all the person's chats
//   account-sessions.ts  AccountSessions  the session list, search over it, shared links
//   account-audit.ts     AccountAudit     the audit trail (its rows, export, retention on the alarm)
//   UserAccount.ts       UserAccount      spend, task and schedule slots, attached files, discovery, Delete my data, /admin
// A new method goes in the file of its concern (or a new class inserted into the chain).
import type { SpendDecision, SpendKind, SpendLimits, TokenHold } from "./spend-ledger";
import type { OAuthRecord } from "../mcp/oauth/provider";
import type { FileReservation } from "./file-ledger";
import type { FileRecord } from "../files/record";
import type { OwnerDiscoveryRow } from "./owner-discovery";
import { ERASING_DECISION } from "./erase-state";
import type { HeldTask, SlotDecision, TaskSlot } from "./task-slots";
import type { ScheduleSlotDecision, ScheduleSlotRequest } from "./schedule-slots";
import type { ConnectedApp } from "./connected-apps";
import { AccountAudit } from "./account-audit";
import type { Preset } from "./presets";
import type { SessionSummary } from "./session-list";
import type { SharedChat } from "./shared-chats";

export type { ServersSnapshot } from "./account-servers";
export { SessionSummarySchema, type SessionSummary } from "./session-list";

/** What a page's load reads of the account (GET /api/bootstrap). */
export interface PageStart {
  sessions: SessionSummary[];
  signedIn: string[];
  apps: { connected: number; questions: number };
  shared: SharedChat[];
  presets: Preset[];
}

export class UserAccount extends AccountAudit {
  /** A page's load reads, in one call to this object instead of one each. `apps`: with MCP_GATEWAY on. */
  pageStart(apps: boolean): PageStart {
    return {
      sessions: this.listSessions(),
      signedIn: this.oauthSignedIn(),
      apps: apps ? this.appsSummary() : { connected: 0, questions: 0 },
      shared: this.listSharedChats(),
      presets: this.listPresets(),
    };
  }

  // ---- running MCP tasks, capped per user across sessions (src/users/task-slots.ts) ----

  reserveTaskSlot(slot: TaskSlot, max: number, now = Date.now()): SlotDecision {
    return this.taskSlots.reserve(slot, max, now);
  }

  releaseTaskSlots(session: string, callIds: string[]): void {
    this.taskSlots.release(session, callIds);
  }

  /** A session's poll: the tasks it still holds (their slots renewed, its others dropped). */
  renewTaskSlots(session: string, held: HeldTask[], now = Date.now()): void {
    this.taskSlots.renew(session, held, now);
  }

  runningTasks(now = Date.now()): number {
    return this.taskSlots.running(now);
  }

  // ---- schedules, capped per person across their chats (src/users/schedule-slots.ts) ----

  /** A slot for a new schedule (`held`: the chat's other schedules, which its slots become); refused past `max`. */
  reserveScheduleSlot(request: ScheduleSlotRequest, max: number): ScheduleSlotDecision {
    return this.scheduleSlots.reserve(request, max);
  }

  releaseScheduleSlot(session: string, schedule?: string): void {
    if (schedule === undefined) this.scheduleSlots.releaseSession(session);
    else this.scheduleSlots.release(session, schedule);
  }

  // ---- Delete my data is final (src/users/erase-state.ts, src/http/my-data.ts) ----

  /** A write request of the Worker begins (src/http/account-writes.ts): its lease, or undefined while an erase runs. */
  openWrite(now = Date.now()): string | undefined {
    return this.erase.openLease(now);
  }

  closeWrite(lease: string): void {
    this.erase.closeLease(lease);
  }

  /** Marks the erase, then waits for the write requests admitted before it; the token `endErase` takes. */
  async beginErase(): Promise<number> {
    const token = this.erase.begin();
    await this.erase.leasesSettled();
    return token;
  }

  endErase(token: number): void {
    this.erase.end(token);
  }

  /** Deleting the account's data: runtime servers, what they offered, own model providers, page logins and paired machines (revoked at once); OAuth records and connected apps are taken by the caller, to revoke. */
  forgetEverything(): { oauth: OAuthRecord[]; apps: ConnectedApp[] } {
    const oauth = this.oauth.signedInServers().flatMap((server) => this.oauthTake(server) ?? []);
    this.oauth.forgetAll();
    this.servers.clear();
    this.search.clear();
    this.ctx.waitUntil(this.emptyShares(this.shares.takeAll()));
    this.providers.clear();
    this.presets.clear();
    this.discovery.clear();
    this.pushDevices.clear();
    this.pushCap.clear();
    this.scheduleSlots.clear();
    // Only this person's list: the chats stay their owners', and this person stays invited until removed.
    this.sharedChats.clear();
    this.logins.endAll();
    for (const machine of this.relay.views()) this.relay.revoke(machine.id);
    this.machineViews = undefined;
    this.questions.dropAll();
    this.argumentRules.clear();
    this.forgetAudit();
    return { oauth, apps: this.apps.takeAll() };
  }

  // ---- what the user's servers offered last (src/users/owner-discovery.ts): a new session's first turn starts from it ----

  discoveryFor(wanted: { server: string; key: string }[]): OwnerDiscoveryRow[] {
    return this.discovery.read(wanted);
  }

  keepDiscovery(rows: OwnerDiscoveryRow[]): void {
    if (this.erase.erasing) return;
    this.discovery.keep(rows);
  }

  // ---- attached files (src/users/file-ledger.ts; their bytes are in R2, src/files/store.ts) ----

  reserveFile(file: FileRecord, quota: number): FileReservation {
    return this.files.reserve(file, quota);
  }

  getFile(id: string): FileRecord | undefined {
    return this.files.get(id);
  }

  removeFile(id: string): FileRecord | undefined {
    return this.files.remove(id);
  }

  /** Bytes of the user's files (their quota's use). */
  filesUsed(): number {
    return this.files.used();
  }

  /** Forgets a session's files (all files when no session is named); their ids, whose bytes the caller deletes. */
  takeFiles(session?: string): string[] {
    return this.files.take(session);
  }

  // ---- spend: the user's rate and daily token budget (src/users/spend-ledger.ts) ----

  /** Counts one turn or direct call against the user's rate, and for turns checks the daily token budget. */
  admit(kind: SpendKind, limits: SpendLimits, now = Date.now(), hold?: TokenHold): SpendDecision {
    if (this.erase.erasing) return ERASING_DECISION;
    return this.spend.admit(kind, limits, now, hold);
  }

  /** A sampling answer's worst case, held before the model is asked; the refusal when the budget has no room. */
  holdSampling(id: string, tokens: number, dailyTokens: number, now = Date.now()): string | undefined {
    return this.spend.holdSampling(id, tokens, dailyTokens, now);
  }

  /** `release`: the hold these tokens settle (a finished turn's or sampling answer's). */
  addUsage(tokens: number, release?: string, now = Date.now()): number {
    return this.spend.addUsage(tokens, release, now);
  }

  tokensUsed(now = Date.now()): number {
    return this.spend.tokensUsed(now);
  }

  /** The operator's line for this user (/admin): how many sessions, the newest activity, and the model tokens spent today (UTC). */
  operatorSummary(now = Date.now()): AccountSummary {
    return { ...this.sessions.summary(), tokensToday: this.spend.tokensUsed(now), machines: this.machines.list().length };
  }
}

export interface AccountSummary {
  sessions: number;
  lastActivity: number | null;
  tokensToday: number;
  machines: number;
}
