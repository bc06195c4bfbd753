// "Connected apps": the MCP clients (Claude, VS Code, Cursor…) this person allowed to use their
// servers through this deployment's /mcp (GET /api/apps, src/http/connected-apps.ts): each
// with the name it gave, who published it, where its access goes, when it was connected and
// last used, the tools it may run without asking (each revocable: app-always.js), the
// sampling switch (PATCH), and Disconnect (DELETE: its very next call is refused). Read when the dialog opens, not at page load (the load is one request). When the
// deployment turned /mcp off the answer says so and the button goes away.
import { describeError, requestOrRefusal } from "../core/api.js";
import { confirmAction } from "../dialogs/dialogs.js";
import { byId } from "../core/dom.js";
import { alwaysAllowedPart } from "./app-always.js";

const $ = byId;

const when = (/** @type {number} */ at) => new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** Who published the client: a client ID metadata document's host, else the id it registered under. */
function publisher(clientId) {
  if (/^https:\/\//.test(clientId)) {
    try {
      return `published by ${new URL(clientId).host}`;
    } catch {
      // Not a URL after all: shown as the id it is.
    }
  }
  return `registered itself as ${clientId} (name not verified)`;
}

function line(className, text) {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  return p;
}

/**
 * One app's row.
 * @param {{ id: string, clientName: string, clientId: string, redirectHost: string, sampling: boolean, connectedAt: number, lastUsed: number | null }} app
 * @param {{ disconnect: (app: any) => void, sampling: (app: any, on: boolean, box: HTMLInputElement) => void, always: (app: any) => HTMLElement }} actions
 */
function row(app, actions) {
  const li = document.createElement("li");
  li.dataset.app = app.id;
  const head = document.createElement("div");
  head.className = "row-head";
  const name = document.createElement("strong");
  name.className = "name";
  name.textContent = app.clientName;
  const disconnect = document.createElement("button");
  disconnect.type = "button";
  disconnect.className = "revoke danger";
  disconnect.textContent = "Disconnect";
  disconnect.setAttribute("aria-label", `Disconnect ${app.clientName}`);
  disconnect.addEventListener("click", () => actions.disconnect(app));
  head.append(name, disconnect);
  const used = line("hint last-used", app.lastUsed ? `Last used ${when(app.lastUsed)}` : "Not used yet");
  const box = document.createElement("input");
  box.type = "checkbox";
  box.checked = app.sampling;
  box.id = `app-sampling-${app.id}`;
  box.addEventListener("change", () => actions.sampling(app, box.checked, box));
  const label = document.createElement("label");
  label.className = "check app-sampling";
  label.htmlFor = box.id;
  label.append(box, ` May spend my model budget when its servers ask the model (sampling)`);
  li.append(
    head,
    line("hint", publisher(app.clientId)),
    line("hint access", `Access goes to ${app.redirectHost} · connected ${when(app.connectedAt)}`),
    used,
    actions.always(app),
    label,
  );
  return li;
}

export function setupConnectedApps() {
  const dialog = $("connected-apps-dialog");
  const opener = $("connected-apps-open");
  const say = (text) => ($("connected-apps-status").textContent = text);
  const mcpUrl = `${location.origin}/mcp`;
  $("connected-apps-url").value = mcpUrl;

  /** Draws the list; false when the deployment has no /mcp (then nothing is shown). */
  async function load() {
    const answer = await requestOrRefusal("/api/apps");
    const list = $("connected-apps-list");
    list.replaceChildren();
    if (!answer.ok) {
      say(describeError(answer.status, answer.data));
      return true;
    }
    if (answer.data?.enabled === false) return false;
    const apps = answer.data?.apps ?? [];
    const always = (app) => alwaysAllowedPart(app, say, () => $("connected-apps-close").focus());
    for (const app of apps) list.append(row(app, { disconnect, sampling, always }));
    if (apps.length === 0) {
      const empty = document.createElement("li");
      empty.className = "empty hint";
      empty.textContent = `No apps connected. Add ${mcpUrl} as a custom connector / remote MCP server in your client (Claude, Claude Code, VS Code, Cursor, ChatGPT): it sends you here to sign in and allow it.`;
      list.append(empty);
    }
    return true;
  }

  async function disconnect(app) {
    const sure = await confirmAction({
      title: `Disconnect "${app.clientName}"?`,
      text: "Its next call is refused at once and its access ends. To use it again, connect it again from the app.",
      confirm: "Disconnect",
    });
    if (!sure) return;
    const answer = await requestOrRefusal(`/api/apps/${app.id}`, { method: "DELETE" });
    say(answer.ok ? `Disconnected "${app.clientName}".` : describeError(answer.status, answer.data));
    await load();
    // The row the focus was on is gone: keep it inside the dialog.
    if (dialog.open && !dialog.contains(document.activeElement)) $("connected-apps-close").focus();
  }

  async function sampling(app, on, box) {
    box.disabled = true;
    const answer = await requestOrRefusal(`/api/apps/${app.id}`, { method: "PATCH", body: { sampling: on } });
    box.disabled = false;
    if (answer.ok) {
      box.checked = answer.data.app.sampling;
      say(on ? `"${app.clientName}" may spend your model budget for sampling.` : `"${app.clientName}" may no longer spend your model budget.`);
    } else {
      box.checked = !on;
      say(describeError(answer.status, answer.data));
    }
  }

  async function open() {
    say("");
    if (!(await load())) {
      // MCP_GATEWAY=off: no app can connect, so the entry goes.
      opener.hidden = true;
      return;
    }
    if (!dialog.open) dialog.showModal();
  }

  async function copy() {
    try {
      await navigator.clipboard.writeText(mcpUrl);
      say("Address copied.");
    } catch {
      $("connected-apps-url").select();
      say("Select the address and copy it.");
    }
  }

  opener.addEventListener("click", () => void open());
  $("connected-apps-close").addEventListener("click", () => dialog.close());
  $("connected-apps-copy").addEventListener("click", () => void copy());
  $("connected-apps-url").addEventListener("focus", () => $("connected-apps-url").select());
  $("connected-apps-refresh").addEventListener("click", () => void load());
  return { open };
}
