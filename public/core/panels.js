// The sidebar: the session list (the signed-in user's sessions, as the server
// lists them) and the MCP server panel with a per-session on/off switch. While
// the page is disconnected the servers are shown as unknown: their last known
// state may no longer be true.
import { authControl, noteServers } from "../servers/oauth-sign-in.js";
import { byId } from "./dom.js";
import { button } from "./buttons.js";
import { groupSessions } from "../sessions/session-groups.js";

const when = (ms) => (typeof ms === "number" ? new Date(ms).toLocaleString() : "");

/**
 * @param {{ id: string, title: string | null, lastActivity?: number, pinned?: boolean }[]} list newest first (pinned ones first)
 */
export function renderSessions(list, current, { onSwitch, onDelete, onRename, onPin, onShare }) {
  const box = byId("sessions");
  box.replaceChildren();
  if (list.length === 0) {
    box.innerHTML = '<ul><li class="hint">No sessions yet.</li></ul>';
    return;
  }
  // One list per group under its heading (session-groups.js): only sessions are list items.
  for (const group of groupSessions(list)) {
    const section = document.createElement("section");
    section.className = "session-group";
    const head = document.createElement("h3");
    head.textContent = group.label;
    const ul = document.createElement("ul");
    ul.setAttribute("aria-label", group.label);
    for (const s of group.sessions) ul.append(sessionItem(s, current, { onSwitch, onDelete, onRename, onPin, onShare }));
    section.append(head, ul);
    box.append(section);
  }
}

function sessionItem(s, current, { onSwitch, onDelete, onRename, onPin, onShare }) {
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
  const pin = button(s.pinned ? "★" : "☆", `${s.pinned ? "Unpin" : "Pin"} session ${title}`, () => onPin(s.id, !s.pinned), "icon pin");
  pin.title = s.pinned ? "Unpin this session" : "Pin this session to the top";
  pin.setAttribute("aria-pressed", String(Boolean(s.pinned)));
  const rename = button("✎", `Rename session ${title}`, () => onRename(s.id, title), "icon rename");
  rename.title = "Rename this session";
  const del = button("×", `Delete session ${title}`, () => onDelete(s.id, title), "icon delete");
  del.title = "Delete this session";
  li.append(open, pin);
  if (onShare) {
    const share = button("⤴", `Share session ${title}`, () => onShare(s.id, title), "icon share");
    share.title = "Share a read-only snapshot of this session";
    li.append(share);
  }
  li.append(rename, del);
  return li;
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
      <label for="${id}"><span class="name"></span> <span class="state"></span> <span class="count"></span> <span class="protocol"></span></label>
      <small class="error"></small>`;
    li.querySelector(".name").textContent = s.name;
    // Switched off for this session: it says so, whatever its connection's state.
    li.classList.toggle("off", !s.enabled);
    li.querySelector(".state").textContent = live ? (s.enabled ? s.state : "off") : "unknown (not connected)";
    li.querySelector(".count").textContent = live ? `${s.toolCount} tools` : "";
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
