// A page button with its accessible name (what a screen reader says, e.g. "Edit
// everything" where the face says only "Edit").
export function button(text, label, onClick, className = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.className = className;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

/**
 * A row of a list of tools that run without asking: the tool's name and its Revoke button
 * (a chat's list, always-allowed.js; a connected app's, app-always.js).
 * @param {string} tool as `server.tool`
 * @param {string} label Revoke's accessible name
 * @param {(revoke: HTMLButtonElement) => void} onRevoke
 */
export function revokeRow(tool, label, onRevoke) {
  const li = document.createElement("li");
  const name = document.createElement("code");
  name.textContent = tool;
  const revoke = button("Revoke", label, () => onRevoke(revoke), "revoke");
  li.append(name, revoke);
  return { li, revoke };
}
