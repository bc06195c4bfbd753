// The session's "Always allow" memory, seen and taken back: the tools the user chose to run
// without asking in this chat, listed under its servers with a Revoke button each. The list
// is the session's (`always_allowed` frames), so every tab of the chat shows the same one.
import { revokeRow } from "../core/buttons.js";
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";
import { ruleRows } from "./argument-rules.js";

/** @param {(message: import("../core/types").ClientMessage) => void} send */
export function setupAlwaysAllowed(send) {
  subscribe(["alwaysAllowed", "argumentRules", "live"], () => {
    const box = byId("always-allowed-box");
    const ul = byId("always-allowed");
    ul.replaceChildren();
    // Only what the socket said now: while disconnected the list may be out of date.
    box.hidden = !state.live || (state.alwaysAllowed.length === 0 && state.argumentRules.length === 0);
    for (const tool of state.alwaysAllowed) {
      const { li, revoke } = revokeRow(tool, `Revoke always allow of ${tool}`, () => {
        revoke.disabled = true;
        send({ type: "revoke_always", tool });
      });
      revoke.title = `Ask again before ${tool} runs in this chat`;
      ul.append(li);
    }
    // The chat's argument rules, after the tools (argument-rules.js).
    ul.append(...ruleRows(send));
  });
}
