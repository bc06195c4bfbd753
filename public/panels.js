// The sidebar: the session list (the signed-in user's sessions, as the server
// lists them) and the MCP server panel with a per-session on/off switch. While
// the page is disconnected the servers are shown as unknown: their last known
// state may no longer be true.
import { authControl, noteServers } from "./oauth-sign-in.js";
import { byId } from "./dom.js";
import { button } from "./buttons.js";

const when = (ms) => (typeof ms === "number" ? new Date(ms).toLocaleString() : "");

/**
 * @param {{ id: string, title: string | null, lastActivity?: number }[]} list newest first
 */
export function renderSessions(list, current, { onSwitch, onDelete, onRename }) {
  const ul = byId("sessions");
  ul.replaceChildren();
  if (list.length === 0) {
    ul.innerHTML = '<li class="hint">No sessions yet.</li>';
    return;
  }
  for (const s of list) {
    const title = s.title?.trim() || "New chat";
    const li = document.createElement("li");
    li.dataset.session = s.id;
    if (s.id === current) li.className = "current";
    const open = document.createElement("button");
    open.className = "link";
    open.textContent = title;
    open.title = s.lastActivity ? `${title} (last active ${when(s.lastActivity)})` : title;
    if (s.id === current) open.setAttribute("aria-current", "true");
    open.addEventListener("click", () => onSwitch(s.id));
    const del = button("×", `Delete session ${title}`, () => onDelete(s.id, title), "icon delete");
    del.title = "Delete this session";
    const rename = button("✎", `Rename session ${title}`, () => onRename(s.id, title), "icon rename");
    rename.title = "Rename this session";
    li.append(open, rename, del);
    ul.append(li);
  }
}

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
      <label for="${id}"><span class="name"></span> <span class="state"></span> <span class="count"></span></label>
      <small class="error"></small>`;
    li.querySelector(".name").textContent = s.name;
    // Switched off for this session: it says so, whatever its connection's state.
    li.classList.toggle("off", !s.enabled);
    li.querySelector(".state").textContent = live ? (s.enabled ? s.state : "off") : "unknown (not connected)";
    li.querySelector(".count").textContent = live ? `${s.toolCount} tools` : "";
    li.querySelector(".error").textContent = live ? (s.lastError ?? "") : "";
    const box = li.querySelector("input");
    box.checked = s.enabled;
    box.disabled = !live;
    box.addEventListener("change", () => onToggle(s.name, box.checked));
    li.append(authControl(s.name));
    ul.append(li);
  }
}
