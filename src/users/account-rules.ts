// UserAccount's RPC for the person's argument rules for all their chats
// (src/users/argument-rules-store.ts): kept by a chat that made one from an approval, read by
// chats and connected apps (a snapshot, the list only when its version changed), listed and
// revoked from any chat or GET/DELETE /api/rules.
import { AccountServers } from "./account-servers";
import type { ArgumentRule, RulesSnapshot } from "../shared/argument-rule";
import { RULES_PER_USER } from "./argument-rules-store";

export type RuleKept = { ok: true; snapshot: RulesSnapshot } | { ok: false; code: "too_many_rules" | "account_erasing"; message: string };

export class AccountRules extends AccountServers {
  /** A rule the chat made and checked against the call it answered (src/approval/argument-rules.ts). */
  addRule(rule: ArgumentRule, known?: string): RuleKept {
    if (this.erase.erasing) return { ok: false, code: "account_erasing", message: "your data is being deleted" };
    if (!this.argumentRules.add(rule))
      return { ok: false, code: "too_many_rules", message: `you have ${RULES_PER_USER} rules for all your chats already: revoke one first` };
    return { ok: true, snapshot: this.argumentRules.snapshot(known) };
  }

  listRules(): ArgumentRule[] {
    return this.argumentRules.list();
  }

  /** The snapshot after the delete, or undefined when the person has no rule with that id. */
  deleteRule(id: string, known?: string): RulesSnapshot | undefined {
    return this.argumentRules.delete(id) ? this.argumentRules.snapshot(known) : undefined;
  }

  rulesSnapshot(known?: string): RulesSnapshot {
    return this.argumentRules.snapshot(known);
  }
}
