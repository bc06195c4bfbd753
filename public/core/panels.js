// The sidebar's MCP server panel with a per-session on/off switch (the chat list is
// ../sessions/session-list.js). While the page is disconnected the servers are shown
// as unknown: their last known state may no longer be true.
import { authControl, noteServers } from "../servers/oauth-sign-in.js";
import { byId } from "./dom.js";

/** Renders a `servers` message; `live` false greys everything out as unknown (socket down). */
export function renderServers(servers, onToggle, { live = true } = {}) {
  noteServers(servers, live);
  const ul = byId("servers");
  ul.replaceChildren();
  ul.classList.toggle("stale", !live);
  if (servers.length === 0) {
    ul.innerHTML = live ? '<li class="hint">No MCP servers configured (mcp.json).</li>' : '<li class="hint">Not connected: server states unknown.</li>';
    return;
  }
  for (const s of servers) {
    const state = live ? s.state : "unknown";
    const li = document.createElement("li");
    li.dataset.server = s.name;
    li.dataset.state = state;
    const id = `server-${s.name}`;
    li.innerHTML = `<span class="dot" aria-hidden="true"></span>
      <input type="checkbox" id="${id}">
      <label for="${id}"><span class="name"></span> <span class="state"></span> <span class="count"></span> <span class="protocol"></span></label>
      <small class="error"></small>`;
    li.querySelector(".name").textContent = s.name;
    // Switched off for this session: it says so, whatever its connection's state.
    li.classList.toggle("off", !s.enabled);
    li.querySelector(".state").textContent = live ? (s.enabled ? s.state : "off") : "unknown (not connected)";
    li.querySelector(".count").textContent = live ? `${s.toolCount} ${s.toolCount === 1 ? "tool" : "tools"}` : "";
    // The MCP revision its last connect negotiated (2026-07-28, or a 2025 one): shown while it is known.
    const protocol = /** @type {HTMLElement} */ (li.querySelector(".protocol"));
    protocol.textContent = live && s.protocol ? `MCP ${s.protocol}` : "";
    protocol.title = live && s.protocol ? "The MCP revision this server speaks" : "";
    li.querySelector(".error").textContent = live ? (s.lastError ?? "") : "";
    const box = li.querySelector("input");
    box.checked = s.enabled;
    box.disabled = !live;
    box.addEventListener("change", () => onToggle(s.name, box.checked));
    li.append(authControl(s.name));
    ul.append(li);
  }
}
