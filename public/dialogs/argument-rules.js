// A chat's argument rules and the person's for all their chats (docs/rules.md), listed under "Always allowed in this chat" beside
// the always-allowed tools, each with Revoke: the rule's own text as the Worker wrote it
// ("filesystem.write_file when path is under notes/"), so the person reads what is checked.
import { revokeRow } from "../core/buttons.js";
import { state } from "../core/state.js";

/**
 * The rows of the open chat's rules, from its last `always_allowed` frame.
 * @param {(message: import("../core/types").ClientMessage) => void} send
 */
export function ruleRows(send) {
  // The chat's own first, then the person's for all their chats (marked: revoking one reaches every chat).
  return state.argumentRules.map((rule) => {
    const label = rule.scope === "all" ? `${rule.text} (all my chats)` : rule.text;
    const { li, revoke } = revokeRow(label, `Revoke the rule ${label}`, () => {
      revoke.disabled = true;
      send({ type: "revoke_rule", id: rule.id });
    });
    li.dataset.rule = rule.id;
    li.classList.add("argument-rule");
    li.dataset.scope = rule.scope;
    revoke.title = `Ask again before ${rule.server}.${rule.tool} runs for these arguments`;
    return li;
  });
}
