// The session's "Always allow" memory, seen and taken back: the tools the user chose to run
// without asking in this chat, listed under its servers with a Revoke button each. The list
// is the session's (`always_allowed` frames), so every tab of the chat shows the same one.
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";

/** @param {(message: import("../core/types").ClientMessage) => void} send */
export function setupAlwaysAllowed(send) {
  subscribe(["alwaysAllowed", "live"], () => {
    const box = byId("always-allowed-box");
    const ul = byId("always-allowed");
    ul.replaceChildren();
    // Only what the socket said now: while disconnected the list may be out of date.
    box.hidden = !state.live || state.alwaysAllowed.length === 0;
    for (const tool of state.alwaysAllowed) {
      const li = document.createElement("li");
      const name = document.createElement("code");
      name.textContent = tool;
      const revoke = document.createElement("button");
      revoke.type = "button";
      revoke.className = "revoke";
      revoke.textContent = "Revoke";
      revoke.title = `Ask again before ${tool} runs in this chat`;
      revoke.setAttribute("aria-label", `Revoke always allow of ${tool}`);
      revoke.addEventListener("click", () => {
        revoke.disabled = true;
        send({ type: "revoke_always", tool });
      });
      li.append(name, revoke);
      ul.append(li);
    }
  });
}
