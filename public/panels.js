// The side panels and dialogs: session list (kept in localStorage), MCP server
// panel with per-session on/off, the tool console, and the approval and
// elicitation dialogs (native <dialog>: focus trap and Escape for free).
import { buildSchemaForm } from "./schema-form.js";

const STORE = "edgehost.sessions";

export const sessions = {
  all() {
    try {
      return JSON.parse(localStorage.getItem(STORE) ?? "[]");
    } catch {
      return [];
    }
  },
  save(list) {
    localStorage.setItem(STORE, JSON.stringify(list));
  },
  add(id) {
    const list = sessions.all().filter((s) => s.id !== id);
    list.unshift({ id, title: "New chat", createdAt: Date.now() });
    sessions.save(list);
  },
  title(id, text) {
    const list = sessions.all();
    const found = list.find((s) => s.id === id);
    if (found && found.title === "New chat") {
      found.title = text.slice(0, 40);
      sessions.save(list);
    }
  },
  remove(id) {
    sessions.save(sessions.all().filter((s) => s.id !== id));
  },
};

export function renderSessions(current, { onSwitch, onDelete }) {
  const ul = document.getElementById("sessions");
  ul.replaceChildren();
  for (const s of sessions.all()) {
    const li = document.createElement("li");
    li.dataset.session = s.id;
    if (s.id === current) li.className = "current";
    const open = document.createElement("button");
    open.className = "link";
    open.textContent = s.title;
    open.title = `Open session ${s.id}`;
    if (s.id === current) open.setAttribute("aria-current", "true");
    open.addEventListener("click", () => onSwitch(s.id));
    const del = document.createElement("button");
    del.className = "icon delete";
    del.textContent = "×";
    del.setAttribute("aria-label", `Delete session ${s.title}`);
    del.addEventListener("click", () => onDelete(s.id));
    li.append(open, del);
    ul.append(li);
  }
}

export function renderServers(servers, onToggle) {
  const ul = document.getElementById("servers");
  ul.replaceChildren();
  if (servers.length === 0) {
    ul.innerHTML = '<li class="hint">No MCP servers configured (mcp.json).</li>';
    return;
  }
  for (const s of servers) {
    const li = document.createElement("li");
    li.dataset.server = s.name;
    li.dataset.state = s.state;
    const id = `server-${s.name}`;
    li.innerHTML = `<span class="dot" aria-hidden="true"></span>
      <input type="checkbox" id="${id}">
      <label for="${id}"><span class="name"></span> <span class="state"></span> <span class="count"></span></label>
      <small class="error"></small>`;
    li.querySelector(".name").textContent = s.name;
    li.querySelector(".state").textContent = s.state;
    li.querySelector(".count").textContent = `${s.toolCount} tools`;
    li.querySelector(".error").textContent = s.lastError ?? "";
    const box = li.querySelector("input");
    box.checked = s.enabled;
    box.addEventListener("change", () => onToggle(s.name, box.checked));
    ul.append(li);
  }
}

/** Shows one approval at a time; resolves with "approve" | "always" | "deny". */
export function askApproval(request) {
  const dialog = document.getElementById("approval-dialog");
  document.getElementById("approval-title").textContent =
    request.kind === "sampling" ? `"${request.server}" asks the model to answer` : "Allow this tool call?";
  document.getElementById("approval-what").textContent =
    request.kind === "sampling" ? "The server wants this prompt sent to the model:" : `${request.server}.${request.tool}`;
  document.getElementById("approval-args").textContent =
    request.kind === "sampling" ? request.prompt ?? "" : JSON.stringify(request.arguments ?? {}, null, 2);
  dialog.dataset.callId = request.callId;
  return showDialog(dialog, "deny");
}

export function askElicitation(request) {
  const dialog = document.getElementById("elicitation-dialog");
  document.getElementById("elicitation-message").textContent = `${request.server}: ${request.message}`;
  const read = buildSchemaForm(document.getElementById("elicitation-fields"), request.schema);
  dialog.dataset.requestId = request.requestId;
  return showDialog(dialog, "cancel").then((action) => ({ action, content: action === "accept" ? read() : undefined }));
}

function showDialog(dialog, fallback) {
  return new Promise((resolve) => {
    dialog.returnValue = "";
    dialog.addEventListener("close", () => resolve(dialog.returnValue || fallback), { once: true });
    dialog.showModal();
  });
}

/** Closes a dialog another tab already answered. */
export function closeIfShowing(id, value) {
  for (const dialog of document.querySelectorAll("dialog[open]")) {
    if (dialog.dataset.callId === id || dialog.dataset.requestId === id) dialog.close(value);
  }
}

export function setupConsole(getSession) {
  const select = document.getElementById("console-tool");
  const form = document.getElementById("console-form");
  const out = document.getElementById("console-result");
  let tools = [];
  let read = () => ({});
  const pick = () => {
    const tool = tools.find((t) => t.qualifiedName === select.value);
    document.getElementById("console-description").textContent = tool?.description ?? "";
    read = tool ? buildSchemaForm(form, tool.inputSchema) : () => ({});
  };
  select.addEventListener("change", pick);
  document.getElementById("console-call").addEventListener("click", async () => {
    const tool = tools.find((t) => t.qualifiedName === select.value);
    if (!tool) return;
    let args;
    try {
      args = read();
    } catch (error) {
      out.textContent = String(error.message ?? error);
      return;
    }
    let approved = false;
    if (tool.needsApproval) {
      approved = (await askApproval({ kind: "tool", callId: "console", server: tool.qualifiedName.split(".")[0], tool: tool.name, arguments: args })) !== "deny";
      if (!approved) {
        out.textContent = "Not called: denied.";
        return;
      }
    }
    out.textContent = "Calling…";
    const response = await fetch(`/api/tools/${encodeURIComponent(tool.qualifiedName)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ arguments: args, approved, sessionId: getSession() }),
    });
    const body = await response.json();
    out.dataset.status = String(response.status);
    out.textContent = response.ok
      ? body.result.content.map((c) => (c.type === "text" ? c.text : JSON.stringify(c))).join("\n") || JSON.stringify(body.result, null, 2)
      : `${body.error.code}: ${body.error.message}${body.error.issues ? `\n${body.error.issues.map((i) => `- ${i.path}: ${i.message}`).join("\n")}` : ""}`;
  });
  return {
    async load() {
      const response = await fetch(`/api/servers?session=${encodeURIComponent(getSession())}`);
      const body = await response.json();
      tools = (body.servers ?? []).flatMap((s) => (s.state === "ready" ? s.tools : []));
      const previous = select.value;
      select.replaceChildren(...tools.map((t) => new Option(`${t.qualifiedName}${t.needsApproval ? " (asks)" : ""}`, t.qualifiedName)));
      if (tools.some((t) => t.qualifiedName === previous)) select.value = previous;
      pick();
    },
  };
}
