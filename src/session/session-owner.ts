// Who a session belongs to, and everything the session asks of its owner's account
// (src/users/UserAccount.ts): admission of turns and direct calls against their
// limits, model tokens spent, the owner's runtime servers, and the session's entry in
// their list. The owner is recorded in the session's own storage when the Worker
// first admits a user (the only one ever admitted after that).
import type { Env } from "../config/env";
import type { Settings } from "../config/settings";
import { userAccount } from "../users/account";
import { snapshotConfigs as toConfigs, type UserServerList } from "../users/server-configs";
import { ownProviderSpecs } from "../users/user-providers";
import type { ProviderSpec } from "../llm/provider-config";
import type { SpendDecision, SpendKind } from "../users/spend-ledger";
import type { HistoryStore } from "./history";
import { PendingUsage } from "./pending-usage";
import { afterRequest } from "./deferred-opening";
import type { OwnerDiscoveryPort } from "./mcp/session-mcp";
import type { PublicError } from "../shared/errors";
import type { RulesSnapshot } from "../shared/argument-rule";
import type { OwnerRulesAccount } from "../approval/owner-rules";
import type { MemberRole } from "./people/roles";
import type { Preset, Profile } from "../users/presets";

const OWNER_KEY = "owner";
const LISTED_KEY = "listed";
const OWNER_NAME_KEY = "ownerName";
/** The id of the hold the session's last admitted turn placed on the owner's budget (src/users/reservations.ts). */
const HOLD_KEY = "budgetHold";
/** Activity in the owner's list is marked at most this often (its precision is a minute). */
const TOUCH_EVERY_MS = 60_000;
/** A turn's tokens go to the account with the next turn's admission, or on their own after this long. */
const REPORT_AFTER_MS = 2_000;

/** `full`: a claim refused because the person's list is at its cap (`room`); nothing was claimed. */
export type Admission = "owner" | "claimed" | "denied" | "full";

/**
 * What the Worker asks when it admits a user. `room`: the cap on the person's chats; with it, a
 * claim checks it and lists the chat in one call to their account (`addSessionIfRoom`), instead of the
 * Worker asking the account first (a round trip less when a page opens a new chat by its socket).
 */
export interface AdmitOptions {
  claim: boolean;
  listed?: boolean;
  name?: string;
  room?: number;
}
/** What the Worker's admission answers: the owner, a new claim, an invited person's role (people/members.ts), or nobody (404). */
export type PersonAdmission = Admission | MemberRole;

const NO_OWNER: SpendDecision = { ok: false, code: "rate_limited", message: "This session has no owner.", retryAfterMs: 0 };

export class SessionOwner {
  private lastTouched = 0;
  /** The account's generation the last turn was admitted under (src/users/erase-state.ts): its touch carries it. */
  private generation?: number;
  private readonly pending: PendingUsage;
  private reportTimer?: ReturnType<typeof setTimeout>;
  /** The owner's own instructions as the last turn's admission brought them (kept in memory: after a restart the next admission brings them again). */
  private profile?: Profile;

  constructor(
    private readonly env: Env,
    private readonly sessionId: string,
    private readonly store: HistoryStore,
    private readonly settings: () => Settings,
  ) {
    this.pending = new PendingUsage(store);
  }

  get id(): string | undefined {
    return this.store.getSetting<string>(OWNER_KEY);
  }

  /** The owner's display name as the deployment knows them (an email, a token name), for mcp.json's `users`. */
  get name(): string | undefined {
    return this.store.getSetting<string>(OWNER_NAME_KEY);
  }

  /** Whether `user` owns this session; the first user to open it becomes its owner. */
  async admit(user: string, options: AdmitOptions): Promise<Admission> {
    const owner = this.id;
    if (owner !== undefined) {
      if (owner !== user) return "denied";
      if (options.name !== undefined && options.name !== this.name) this.store.setSetting(OWNER_NAME_KEY, options.name);
      return "owner";
    }
    if (!options.claim) return "denied";
    // Claimed before the account is asked: another admission meanwhile finds an owner (and is denied).
    const listed = options.listed ?? true;
    this.store.setSetting(OWNER_KEY, user);
    if (options.name !== undefined) this.store.setSetting(OWNER_NAME_KEY, options.name);
    this.store.setSetting(LISTED_KEY, listed);
    const account = userAccount(this.env, user);
    if (options.room === undefined) {
      if (listed) await account.addSession(this.sessionId);
      return "claimed";
    }
    const fits = listed ? await account.addSessionIfRoom(this.sessionId, options.room) : await account.hasRoomForSession(this.sessionId, options.room);
    if (fits) return "claimed";
    // Over the cap: unclaimed again, as if never opened (a later claim with room may take it).
    for (const key of [OWNER_KEY, OWNER_NAME_KEY, LISTED_KEY]) this.store.setSetting(key, undefined);
    return "full";
  }

  /** The owner's own instructions, as of the last turn's admission (in a shared chat too: only the owner's apply). */
  get instructions(): string | undefined {
    return this.profile?.instructions;
  }

  /** One of the owner's presets (src/users/presets.ts). */
  async preset(id: string): Promise<Preset | undefined> {
    return this.account()?.getPreset(id);
  }

  /** Counts a turn or direct call against the owner's limits, kept in their account across sessions and restarts. */
  async spend(kind: SpendKind): Promise<SpendDecision> {
    const account = this.account();
    if (!account) return NO_OWNER;
    return account.admit(kind, this.limits(kind === "turn"));
  }

  /** `budgeted`: counted against DAILY_TOKEN_BUDGET (a turn on the deployment's models; not one on the owner's own key). */
  private limits(budgeted: boolean) {
    const settings = this.settings();
    return { perMinute: settings.RATE_LIMIT_PER_MINUTE, burst: settings.RATE_LIMIT_BURST, dailyTokens: budgeted ? settings.DAILY_TOKEN_BUDGET : undefined };
  }

  /** The owner's own model providers, keys included (they stay inside the Worker). */
  async modelProviders(): Promise<ProviderSpec[]> {
    const account = this.account();
    return account ? ownProviderSpecs(await account.listModelProviders()) : [];
  }

  /** A direct or app tool call counted against the owner's limits: the refusal to answer with, or nothing when admitted. */
  async refuseCall(): Promise<{ ok: false; error: PublicError } | undefined> {
    const spend = await this.spend("call");
    if (spend.ok) return undefined;
    return { ok: false, error: { code: spend.code, message: spend.message, retryAfterMs: "retryAfterMs" in spend ? spend.retryAfterMs : undefined } };
  }

  /**
   * A turn's admission and the owner's servers (when changed since `known`), in one call to
   * the account, which also takes the tokens this session's earlier turns spent (pending-usage.ts).
   */
  async beginTurn(known?: string, ownKey = false, knownRules?: string): Promise<{ decision: SpendDecision; servers: UserServerList; rules?: RulesSnapshot }> {
    const account = this.account();
    if (!account) return { decision: NO_OWNER, servers: { version: "none", servers: [] } };
    // Each turn holds its worst case under an id of its own, so a late report of one turn never ends the next one's hold.
    // Without a daily budget there is nothing to hold (and no write for it).
    const previous = this.store.getSetting<string>(HOLD_KEY);
    // A turn on the owner's own key holds nothing (and leaves the previous turn's hold to its report).
    const hold =
      this.settings().DAILY_TOKEN_BUDGET === undefined || ownKey
        ? undefined
        : { id: `turn:${this.sessionId}:${crypto.randomUUID()}`, tokens: this.settings().TURN_TOKEN_RESERVATION, release: previous };
    // This session's writes after the answer wait a macrotask (with the turn's opening: one commit): the turn's model
    // request is issued first, and a write before it would hold it for a storage commit (deferred-opening.ts). A
    // restart in between counts the carried tokens twice (the safe side).
    const later = (write: () => void) => afterRequest(this.store, write);
    const begin = (tokens: number) => account.beginTurn(this.limits(!ownKey), known, tokens, hold, undefined, knownRules, this.profile?.version);
    // Earlier turns' tokens ride along only when a budget is checked against them: adding them is a write in the
    // account, whose answer (and so this turn's model request) then waits for its commit. Without a budget they
    // decide nothing here, and the report after the turn (reportSoon) takes them, off the next turn's path.
    const begun = hold ? await this.pending.carry(begin, later) : await begin(0);
    this.generation = begun.generation;
    // The text comes only when it changed; otherwise the one held stands.
    if (begun.profile.version !== this.profile?.version) this.profile = begun.profile;
    const held = hold && begun.decision.ok ? hold.id : undefined;
    if (!ownKey && held !== previous) later(() => this.store.setSetting(HOLD_KEY, held));
    return { decision: begun.decision, servers: toConfigs(begun.servers), rules: begun.rules };
  }

  /**
   * A sampling answer's worst case held against the owner's daily budget before the model is
   * asked; the refusal when there is no room. `settle` with the real count ends the hold.
   */
  async holdSampling(id: string, tokens: number): Promise<string | undefined> {
    const budget = this.settings().DAILY_TOKEN_BUDGET;
    const account = this.account();
    if (budget === undefined || !account) return undefined;
    // This session's tokens not reported yet count too (some may be on their way: counted twice at worst, refusing early).
    return account.holdSampling(id, tokens + this.pending.total, budget);
  }

  /** Tokens spent mid-turn (a sampling answer): counted now, since the next request in the turn is checked against them. */
  async addUsage(tokens: number, release?: string): Promise<void> {
    await this.account()?.addUsage(tokens, release);
  }

  /** A finished turn's tokens: they go with the next turn's admission, or on their own soon after (ending its hold). */
  turnUsage(tokens: number): void {
    this.pending.add(tokens);
    this.reportSoon();
  }

  /** After a restart: tokens a turn left unreported go on their own. */
  resumeReport(): void {
    if (this.pending.total > 0) this.reportSoon();
  }

  private reportSoon(): void {
    if (this.reportTimer !== undefined) return;
    this.reportTimer = setTimeout(() => {
      this.reportTimer = undefined;
      void this.report();
    }, REPORT_AFTER_MS);
  }

  private async report(): Promise<void> {
    const account = this.account();
    const hold = this.store.getSetting<string>(HOLD_KEY);
    if (!account || (this.pending.unsent <= 0 && !hold)) return;
    await this.pending
      .carry((tokens) => account.addUsage(tokens, hold))
      .then(() => {
        if (this.store.getSetting<string>(HOLD_KEY) === hold) this.store.setSetting(HOLD_KEY, undefined);
      })
      .catch(() => this.reportSoon());
  }

  /** The owner's runtime servers; the list only when its version differs from `known`. */
  async servers(known?: string): Promise<UserServerList> {
    const account = this.account();
    if (!account) return { version: "none", servers: [] };
    return toConfigs(await account.serversSnapshot(known));
  }

  /** The owner's account as their argument rules for all chats need it (src/approval/owner-rules.ts); only ever the owner's. */
  rulesAccount(): OwnerRulesAccount | undefined {
    const account = this.account();
    if (!account) return undefined;
    return {
      rulesSnapshot: (known) => account.rulesSnapshot(known),
      addRule: (rule, known) => account.addRule(rule, known),
      deleteRule: (id, known) => account.deleteRule(id, known),
    };
  }

  /** What the owner's servers offered in their other sessions (src/users/owner-discovery.ts). */
  readonly discovery: OwnerDiscoveryPort = {
    read: async (wanted) => (await this.account()?.discoveryFor(wanted)) ?? [],
    keep: async (rows) => void (await this.account()?.keepDiscovery(rows)),
  };

  /** The first message titles the session in the owner's list; later ones only move its "last activity". */
  touched(text: string): void {
    const now = Date.now();
    if (!this.store.getSetting<boolean>(LISTED_KEY) || now - this.lastTouched < TOUCH_EVERY_MS) return;
    this.lastTouched = now;
    void this.account()
      ?.touchSession(this.sessionId, text, now, this.generation)
      .catch(() => (this.lastTouched = 0));
  }

  /** Takes the session off the owner's list (it stays owned: a deleted id is never claimed by someone else). */
  async unlist(): Promise<void> {
    if (this.store.getSetting<boolean>(LISTED_KEY)) await this.account()?.removeSession(this.sessionId);
  }

  /** The owner's account when this session is in their list (its messages are searchable there); console sessions are not. */
  listedAccount() {
    return this.store.getSetting<boolean>(LISTED_KEY) ? this.account() : undefined;
  }

  private account() {
    const owner = this.id;
    return owner ? userAccount(this.env, owner) : undefined;
  }
}
