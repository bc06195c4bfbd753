// A chat's argument rules, kept in the session's settings (`argumentRules`), compiled once
// per change (argument-rules.ts), and read at every call so a revoke applies to the next one.
import { type ArgumentRule, compileRules } from "./argument-rules";
import type { RuleMatch } from "./decision";

const KEY = "argumentRules";

/** The session's settings (approvals.ts SettingsStore; said again here so the two files do not import each other). */
interface SettingsStore {
  getSetting<T>(key: string): T | undefined;
  setSetting(key: string, value: unknown): void;
}

export class ChatRules {
  private compiled: ReturnType<typeof compileRules> | undefined;

  /** `max`: RULES_PER_CHAT (src/config/settings.ts). */
  constructor(
    private readonly store: SettingsStore,
    readonly max: number,
  ) {}

  list(): ArgumentRule[] {
    return this.store.getSetting<ArgumentRule[]>(KEY) ?? [];
  }

  /** False when the chat has RULES_PER_CHAT already. */
  add(rule: ArgumentRule): boolean {
    const rules = this.list();
    if (rules.length >= this.max) return false;
    this.save([...rules, rule]);
    return true;
  }

  /** False when no rule has that id. */
  revoke(id: string): boolean {
    const rules = this.list();
    const left = rules.filter((rule) => rule.id !== id);
    if (left.length === rules.length) return false;
    this.save(left);
    return true;
  }

  forget(): void {
    this.save([]);
  }

  match(server: string, tool: string, args: Record<string, unknown>): RuleMatch | undefined {
    this.compiled ??= compileRules(this.list());
    return this.compiled(server, tool, args);
  }

  private save(rules: ArgumentRule[]): void {
    this.store.setSetting(KEY, rules.length > 0 ? rules : undefined);
    this.compiled = undefined;
  }
}
