// The tools a connected app may run without asking (its "Always allow for <app>" answers,
// kept per app by its object: GET /api/apps/:id → alwaysAllowed), shown in its Connected
// apps row, each with Revoke (DELETE /api/apps/:id/always/:server.tool): revoked, the
// tool asks again from its next call in that app. Each row reads its own list when drawn
// (people have a few apps), so the list the dialog opens with is the objects' current one.
import { describeError, requestOrRefusal as ask } from "../core/api.js";
import { revokeRow } from "../core/buttons.js";

/**
 * @param {{ id: string, clientName: string }} app
 * @param {(text: string) => void} say the dialog's status line
 * @param {() => void} keepFocus called when the focused Revoke went and no other is left
 */
export function alwaysAllowedPart(app, say, keepFocus) {
  const part = document.createElement("div");
  part.className = "app-always";
  const title = document.createElement("p");
  title.className = "hint always-title";
  title.textContent = "Reading the tools it may run without asking…";
  const list = document.createElement("ul");
  list.className = "always-list";
  list.setAttribute("aria-label", `Tools ${app.clientName} runs without asking`);
  part.append(title, list);

  /** @param {string[]} tools as `server.tool` */
  function draw(tools) {
    list.replaceChildren(...tools.map(item));
    list.hidden = tools.length === 0;
    title.textContent = tools.length === 0 ? "No tool runs without asking." : "Runs without asking (you chose Always allow):";
  }

  function item(tool) {
    const { li } = revokeRow(tool, `Revoke always allow of ${tool} for ${app.clientName}`, (revoke) => void take(tool, revoke));
    li.dataset.tool = tool;
    return li;
  }

  async function take(tool, button) {
    // Read before disabling it: a disabled button loses the focus.
    const hadFocus = document.activeElement === button;
    button.disabled = true;
    const answer = await ask(`/api/apps/${app.id}/always/${encodeURIComponent(tool)}`, { method: "DELETE" });
    if (!answer.ok) {
      button.disabled = false;
      if (hadFocus) button.focus();
      say(describeError(answer.status, answer.data));
      return;
    }
    draw(answer.data?.alwaysAllowed ?? []);
    say(`${tool} asks again from its next call in "${app.clientName}".`);
    if (!hadFocus) return;
    // The focused button went with its row: the next Revoke, else somewhere inside the dialog.
    const next = list.querySelector("button.revoke");
    if (next instanceof HTMLElement) next.focus();
    else keepFocus();
  }

  void (async () => {
    const answer = await ask(`/api/apps/${app.id}`);
    if (answer.ok) draw(answer.data?.app?.alwaysAllowed ?? []);
    else title.textContent = describeError(answer.status, answer.data);
  })();
  return part;
}
