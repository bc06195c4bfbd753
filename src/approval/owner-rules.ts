// The chat owner's argument rules for all their chats, as one chat (or one connected app)
// holds them: the account's snapshot (src/users/argument-rules-store.ts), taken with each
// turn's admission and kept in memory and in a setting (a cold start has the last one),
// compiled once per version. The console's and apps' calls ask the account first (`refresh`);
// when it cannot be reached the last known rules stand. Only ever the chat owner's account:
// nobody else's rules apply to their chat.
import type { ArgumentRule, RulesSnapshot } from "../shared/argument-rule";
import { compileRules } from "./argument-rules";
import type { RuleMatch } from "./decision";

const KEY = "ownerRules";

interface SettingsStore {
  getSetting<T>(key: string): T | undefined;
  setSetting(key: string, value: unknown): void;
}

/** What this needs of the owner's account (src/users/account-rules.ts). */
export interface OwnerRulesAccount {
  rulesSnapshot(known?: string): Promise<RulesSnapshot>;
  addRule(
    rule: ArgumentRule,
    known?: string,
  ): Promise<{ ok: true; snapshot: RulesSnapshot } | { ok: false; code: "too_many_rules" | "account_erasing"; message: string }>;
  deleteRule(id: string, known?: string): Promise<RulesSnapshot | undefined>;
}

type Held = { version: string; rules: ArgumentRule[] };

export class OwnerRules {
  private held?: Held;
  private compiled?: ReturnType<typeof compileRules>;

  constructor(
    private readonly store: SettingsStore,
    /** Undefined while the chat has no owner. */
    private readonly account: () => OwnerRulesAccount | undefined,
    /** The list changed (the page's list is sent again). */
    private readonly changed: () => void,
  ) {}

  /** The version held, for the next admission's `knownRules`. */
  get known(): string | undefined {
    return this.current().version || undefined;
  }

  list(): ArgumentRule[] {
    return this.current().rules;
  }

  match(server: string, tool: string, args: Record<string, unknown>): RuleMatch | undefined {
    const held = this.current();
    if (held.rules.length === 0) return undefined;
    this.compiled ??= compileRules(held.rules);
    return this.compiled(server, tool, args);
  }

  /** A snapshot from the account: kept when it brings a list for another version. */
  take(snapshot: RulesSnapshot): void {
    if (!snapshot.rules || snapshot.version === this.current().version) return;
    const had = this.current().rules.length > 0;
    this.held = { version: snapshot.version, rules: snapshot.rules };
    this.compiled = undefined;
    this.store.setSetting(KEY, this.held.rules.length > 0 || snapshot.version !== "0" ? this.held : undefined);
    if (had || snapshot.rules.length > 0) this.changed();
  }

  /** Reads the account's rules again when they changed; the last known stand if it cannot be reached. */
  async refresh(): Promise<void> {
    const account = this.account();
    if (!account) return;
    try {
      this.take(await account.rulesSnapshot(this.known));
    } catch {
      // Last known rules: a rule revoked meanwhile still allows until the account answers again.
    }
  }

  /** Keeps a rule made in this chat for all the owner's chats; the refusal when it cannot be. */
  async add(rule: ArgumentRule): Promise<{ code: "rule_invalid" | "too_many_rules" | "account_erasing"; message: string } | undefined> {
    const account = this.account();
    if (!account) return { code: "rule_invalid", message: "this chat has no owner to keep a rule for all chats" };
    const kept = await account.addRule({ ...rule, scope: "all" }, this.known);
    if (!kept.ok) return { code: kept.code, message: kept.message };
    this.take(kept.snapshot);
    return undefined;
  }

  /** False when the owner has no such rule. */
  async revoke(id: string): Promise<boolean> {
    const account = this.account();
    if (!account) return false;
    const after = await account.deleteRule(id, this.known);
    if (!after) return false;
    this.take(after);
    return true;
  }

  private current(): Held {
    this.held ??= this.store.getSetting<Held>(KEY) ?? { version: "", rules: [] };
    return this.held;
  }
}
