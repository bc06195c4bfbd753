// "My servers": the remote MCP servers a user adds at runtime (GET/POST/PUT/DELETE
// /api/my-servers), beside the deployment's own (mcp.json), which are listed
// read-only. A modal dialog (focus kept inside, Escape closes) with the list and a
// form: name, URL, transport, headers as name/value rows, timeout, always-allowed
// and included/excluded tools as comma lists, and roots (a URI and a name a line). Header values are write-only: the API
// shows stored ones as the mask "••••••", and a mask sent back keeps the stored
// value. The API's field errors (`error.issues[].path`) are shown next to their
// field, its message on top. After a change the current session is reconnected
// (POST /api/servers/restart?session=ID), so the server panel shows it; each row
// shows the server's state and tool count in this session, from the `servers` frames.
import { NetworkError, request } from "./api.js";
import { button } from "./buttons.js";
import { confirmAction } from "./dialogs.js";
import { authControl } from "./oauth-sign-in.js";

/** What an error answer says went wrong, in a sentence's middle. */
const reason = (answer) => answer.data?.error?.message ?? `the server answered ${answer.status}`;

const $ = (id) => document.getElementById(id);

/** What the API shows in place of a stored header value. */
const MASK = "••••••";
const FIELDS = ["name", "url", "type", "headers", "timeout", "alwaysAllow", "includeTools", "excludeTools", "roots"];

/** The roots box: a URI, then an optional name, per line. */
const rootsText = (roots) => (roots ?? []).map((r) => (r.name ? `${r.uri} ${r.name}` : r.uri)).join("\n");
const readRoots = (text) =>
  String(text ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [uri, ...name] = line.split(/\s+/);
      return name.length > 0 ? { uri, name: name.join(" ") } : { uri };
    });

const list = (text) =>
  String(text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The header name in an issue path: `headers.X` or `headers["X-Key"]`. */
function headerOf(path) {
  const dotted = /^headers\.(.+)$/.exec(path);
  if (dotted) return dotted[1];
  const quoted = /^headers\[("(?:[^"\\]|\\.)*")\]$/.exec(path);
  if (!quoted) return undefined;
  try {
    return JSON.parse(quoted[1]);
  } catch {
    return undefined;
  }
}

/**
 * @param {{ sessionId: () => string | null }} options
 * @returns {{ update(servers: any[], live: boolean): void }}
 */
export function setupMyServers({ sessionId }) {
  const dialog = $("my-servers-dialog");
  const status = $("my-servers-status");
  const view = $("my-servers-view");
  const form = $("my-server-form");
  const rows = $("msf-header-rows");
  /** The user's servers as GET /api/my-servers lists them (headers masked). */
  let mine = [];
  let deployment = [];
  /** The session's servers (the last `servers` frame) and whether the socket is up. */
  let live = { servers: [], up: false };
  /** Last test outcome per server name: { ok, text }. */
  const tests = new Map();
  /** The server being edited (null: adding one). */
  let editing = null;
  /** The button that opened the form, focused again when it closes. */
  let opener = null;
  let headerRows = 0;

  const say = (text, kind = "") => {
    status.textContent = text;
    status.dataset.kind = kind;
  };

  // ---- the list ----

  /** "ready · 13 tools", from this session's last `servers` frame. */
  function stateOf(name) {
    if (!live.up) return { state: "unknown", text: "state unknown (not connected)" };
    const s = live.servers.find((x) => x.name === name);
    if (!s) return { state: "unknown", text: "not in this session yet: reconnect it" };
    return { state: s.state, text: s.state === "ready" ? `${s.state} · ${plural(s.toolCount, "tool")}` : s.state, error: s.lastError, enabled: s.enabled };
  }

  function stateLine(li, name) {
    const st = stateOf(name);
    li.dataset.state = st.state;
    li.querySelector(".state").textContent = st.enabled === false ? `${st.text} · off in this session` : st.text;
    li.querySelector(".error").textContent = st.error ?? "";
  }

  function rowHead(name) {
    const li = document.createElement("li");
    li.innerHTML = `<div class="row-head"><span class="dot" aria-hidden="true"></span><strong class="name"></strong> <span class="state"></span></div><small class="error"></small>`;
    li.querySelector(".name").textContent = name;
    stateLine(li, name);
    return li;
  }

  function renderList() {
    const ul = $("my-servers-list");
    ul.replaceChildren();
    if (mine.length === 0) ul.innerHTML = '<li class="hint empty">None yet: add one below.</li>';
    for (const server of mine) {
      const li = rowHead(server.name);
      li.dataset.myServer = server.name;
      const where = document.createElement("div");
      where.className = "where";
      where.textContent = `${server.url} · ${server.type === "sse" ? "SSE" : "Streamable HTTP"}${server.disabled ? " · turned off" : ""}`;
      const test = document.createElement("p");
      test.className = "test-result";
      const outcome = tests.get(server.name);
      if (outcome) {
        test.textContent = outcome.text;
        test.dataset.ok = String(outcome.ok);
      }
      const actions = document.createElement("div");
      actions.className = "row-buttons";
      actions.append(
        authControl(server.name),
        button("Edit", `Edit ${server.name}`, (event) => openForm(server, event.currentTarget), "edit"),
        button("Test", `Test ${server.name}`, (event) => void testServer(server.name, event.currentTarget, test), "test"),
        button("Remove", `Remove ${server.name}`, () => void removeServer(server.name), "remove danger-outline"),
      );
      li.append(where, test, actions);
      ul.append(li);
    }
    const dep = $("deployment-servers");
    dep.replaceChildren();
    if (deployment.length === 0) dep.innerHTML = '<li class="hint empty">None.</li>';
    for (const name of deployment) {
      const li = rowHead(name);
      li.dataset.deploymentServer = name;
      li.append(authControl(name));
      dep.append(li);
    }
  }

  async function load() {
    let answer;
    try {
      answer = await request("/api/my-servers");
    } catch (error) {
      say(error instanceof NetworkError ? error.message : "Could not load your servers.", "error");
      return false;
    }
    if (!answer.ok || !Array.isArray(answer.data?.servers)) {
      say(`Could not load your servers: ${reason(answer)}.`, "error");
      return false;
    }
    mine = answer.data.servers;
    deployment = Array.isArray(answer.data.deployment) ? answer.data.deployment : [];
    renderList();
    return true;
  }

  // ---- actions ----

  /** Reconnects the current session's servers, so the panels show what changed. */
  async function reconnect(done = "") {
    const id = sessionId();
    if (!id) return;
    const lead = done ? `${done} ` : "";
    say(`${lead}Reconnecting this session…`, "pending");
    try {
      const answer = await request(`/api/servers/restart?session=${encodeURIComponent(id)}`, { method: "POST", body: {} });
      if (!answer.ok) {
        say(`${lead}This session could not reconnect: ${reason(answer)}.`, "error");
        return;
      }
      say(`${lead}This session is reconnected.`, "ok");
    } catch (error) {
      say(`${lead}${error instanceof NetworkError ? error.message : "This session could not reconnect."}`, "error");
    }
  }

  function testText(test) {
    if (!test) return { ok: true, text: "Not tested (turned off)." };
    if (test.ok) return { ok: true, text: `Test passed: ${plural(test.toolCount, "tool")}.` };
    if (test.code === "auth_required") return { ok: false, text: `It asks you to sign in: use its Sign in button. (${test.error})` };
    return { ok: false, text: `Test failed (${test.code}): ${test.error}` };
  }

  async function testServer(name, btn, out) {
    btn.disabled = true;
    btn.textContent = "Testing…";
    out.textContent = "";
    delete out.dataset.ok;
    let outcome;
    try {
      const answer = await request(`/api/my-servers/${encodeURIComponent(name)}/test`, { method: "POST", body: {} });
      outcome = answer.ok && answer.data?.test ? testText(answer.data.test) : { ok: false, text: `Could not test it: ${reason(answer)}.` };
    } catch (error) {
      outcome = { ok: false, text: error instanceof NetworkError ? error.message : "Could not test it." };
    }
    tests.set(name, outcome);
    btn.disabled = false;
    btn.textContent = "Test";
    if (out.isConnected) {
      out.textContent = outcome.text;
      out.dataset.ok = String(outcome.ok);
    }
  }

  async function removeServer(name) {
    const confirmed = await confirmAction({
      title: "Remove this server?",
      text: `“${name}” will be removed from your servers, with its stored headers; your sessions stop using it. This cannot be undone.`,
      confirm: "Remove",
    });
    if (!confirmed) return;
    let answer;
    try {
      answer = await request(`/api/my-servers/${encodeURIComponent(name)}`, { method: "DELETE", body: {} });
    } catch (error) {
      say(error instanceof NetworkError ? error.message : "Could not remove the server.", "error");
      return;
    }
    if (!answer.ok && answer.status !== 404) {
      say(`Could not remove “${name}”: ${reason(answer)}.`, "error");
      return;
    }
    tests.delete(name);
    mine = mine.filter((s) => s.name !== name);
    renderList();
    $("my-server-add").focus();
    await reconnect(`Removed “${name}”.`);
  }

  // ---- the form ----

  function addHeaderRow(name = "", value = "") {
    const n = ++headerRows;
    const li = document.createElement("li");
    li.className = "header-row";
    li.innerHTML = `<input class="h-name" type="text" autocomplete="off" spellcheck="false" autocapitalize="off" placeholder="Authorization">
      <input class="h-value" type="text" autocomplete="off" spellcheck="false" autocapitalize="off" placeholder="value">
      <button type="button" class="icon h-remove">×</button>`;
    const [nameInput, valueInput] = li.querySelectorAll("input");
    nameInput.value = name;
    valueInput.value = value;
    nameInput.setAttribute("aria-label", `Header ${n} name`);
    valueInput.setAttribute("aria-label", `Header ${n} value`);
    // A stored value is a mask: typing replaces it whole.
    valueInput.addEventListener("focus", () => {
      if (valueInput.value === MASK) valueInput.select();
    });
    const remove = li.querySelector("button");
    remove.setAttribute("aria-label", `Remove header ${n}`);
    remove.title = "Remove this header";
    remove.addEventListener("click", () => {
      const next = li.nextElementSibling ?? li.previousElementSibling;
      li.remove();
      (next?.querySelector(".h-name") ?? $("msf-add-header")).focus();
    });
    rows.append(li);
    return nameInput;
  }

  function clearErrors() {
    $("msf-error").textContent = "";
    for (const field of FIELDS) {
      $(`msf-${field}-error`).textContent = "";
      const input = field === "headers" ? $("msf-headers") : $(`msf-${field}`);
      input.removeAttribute("aria-invalid");
    }
    for (const input of rows.querySelectorAll("input")) input.removeAttribute("aria-invalid");
  }

  /** Puts each issue next to its field (a header's next to its row); the rest, and the message, on top. */
  function showErrors(message, issues = []) {
    clearErrors();
    const top = [];
    let first = null;
    for (const issue of issues) {
      const path = String(issue?.path ?? "");
      const text = String(issue?.message ?? "invalid");
      const field = path.split(/[.[]/)[0];
      if (!FIELDS.includes(field)) {
        top.push(path ? `${path}: ${text}` : text);
        continue;
      }
      const out = $(`msf-${field}-error`);
      let target = field === "headers" ? $("msf-headers") : $(`msf-${field}`);
      let line = text;
      if (field === "headers" && path !== "headers") {
        const header = headerOf(path);
        line = `${header ?? path}: ${text}`;
        const row = [...rows.querySelectorAll(".header-row")].find((r) => r.querySelector(".h-name").value.trim() === header);
        if (row) target = row.querySelector(".h-name");
      }
      const rootLine = field === "roots" ? /^roots\[(\d+)\]/.exec(path) : null;
      if (rootLine) line = `line ${Number(rootLine[1]) + 1}: ${text}`;
      out.textContent = out.textContent ? `${out.textContent} ${line}` : line;
      target.setAttribute("aria-invalid", "true");
      if (field === "headers") $("msf-headers").setAttribute("aria-invalid", "true");
      first ??= target.matches("fieldset") ? (rows.querySelector("input") ?? $("msf-add-header")) : target;
    }
    $("msf-error").textContent = [message, ...top].filter(Boolean).join(" ");
    (first ?? $("msf-name")).focus();
  }

  function openForm(server, from) {
    editing = server;
    opener = from ?? null;
    form.reset();
    clearErrors();
    rows.replaceChildren();
    headerRows = 0;
    $("my-server-form-title").textContent = server ? `Edit “${server.name}”` : "Add a server";
    $("msf-name").value = server?.name ?? "";
    $("msf-name").readOnly = Boolean(server);
    $("msf-name-hint").innerHTML = server
      ? "The name cannot change: remove the server and add it again."
      : "1–64 letters, digits, <code>_</code> or <code>-</code>; its tools are named <code>name.tool</code>.";
    $("msf-url").value = server?.url ?? "";
    $("msf-type").value = server?.type === "sse" ? "sse" : "http";
    for (const [name, value] of Object.entries(server?.headers ?? {})) addHeaderRow(name, value);
    $("msf-timeout").value = server?.timeout === undefined ? "" : String(server.timeout);
    $("msf-alwaysAllow").value = (server?.alwaysAllow ?? []).join(", ");
    $("msf-includeTools").value = (server?.includeTools ?? []).join(", ");
    $("msf-excludeTools").value = (server?.excludeTools ?? []).join(", ");
    $("msf-roots").value = rootsText(server?.roots);
    $("msf-save").textContent = server ? "Save changes" : "Add server";
    view.hidden = true;
    form.hidden = false;
    say("");
    (server ? $("msf-url") : $("msf-name")).focus();
  }

  function closeForm({ focus = true } = {}) {
    form.hidden = true;
    view.hidden = false;
    const back = opener;
    editing = null;
    opener = null;
    if (!focus) return;
    // The button that opened the form, or (its row re-rendered) the same one in the new list.
    const again = back?.isConnected
      ? back
      : back?.getAttribute("aria-label")
        ? [...view.querySelectorAll("button")].find((b) => b.getAttribute("aria-label") === back.getAttribute("aria-label"))
        : null;
    (again ?? $("my-server-add")).focus();
  }

  /** The form as the API takes it, or the problems found before sending. */
  function readForm() {
    const issues = [];
    const headers = {};
    const stored = new Set(Object.keys(editing?.headers ?? {}));
    for (const row of rows.querySelectorAll(".header-row")) {
      const name = row.querySelector(".h-name").value.trim();
      const value = row.querySelector(".h-value").value;
      if (!name && !value) continue;
      if (!name) issues.push({ path: "headers", message: "a header has a value but no name" });
      else if (Object.hasOwn(headers, name)) issues.push({ path: `headers[${JSON.stringify(name)}]`, message: "given twice" });
      // A stored value is kept under its own name only: a renamed header needs its value again.
      else if (value === MASK && !stored.has(name))
        issues.push({ path: `headers[${JSON.stringify(name)}]`, message: "type its value again (a stored value stays with the header's old name)" });
      else headers[name] = value;
    }
    const timeoutInput = $("msf-timeout");
    const timeoutText = timeoutInput.value.trim();
    if (timeoutInput.validity.badInput) issues.push({ path: "timeout", message: "expected a number of seconds" });
    const body = {
      name: $("msf-name").value.trim(),
      url: $("msf-url").value.trim(),
      type: $("msf-type").value,
      headers,
      alwaysAllow: list($("msf-alwaysAllow").value),
      excludeTools: list($("msf-excludeTools").value),
      disabled: editing?.disabled ?? false,
    };
    if (timeoutText) body.timeout = Number(timeoutText);
    const include = list($("msf-includeTools").value);
    if (include.length > 0) body.includeTools = include;
    const roots = readRoots($("msf-roots").value);
    if (roots.length > 0) body.roots = roots;
    return { body, issues };
  }

  let saving = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (saving) return;
    const { body, issues } = readForm();
    if (issues.length > 0) {
      showErrors("Some fields need a look.", issues);
      return;
    }
    const create = !editing;
    saving = true;
    const save = $("msf-save");
    const label = save.textContent;
    save.disabled = true;
    save.textContent = "Connecting to the server…";
    $("msf-error").textContent = "";
    let answer;
    try {
      answer = await request(create ? "/api/my-servers" : `/api/my-servers/${encodeURIComponent(body.name)}`, { method: create ? "POST" : "PUT", body });
    } catch (error) {
      answer = { ok: false, status: 0, data: { error: { message: error instanceof NetworkError ? error.message : "Could not save the server." } } };
    } finally {
      saving = false;
      save.disabled = false;
      save.textContent = label;
    }
    if (!answer.ok) {
      const error = answer.data?.error;
      showErrors(
        error?.message ? `${error.message[0].toUpperCase()}${error.message.slice(1)}.`.replace(/\.\.$/, ".") : `The server answered ${answer.status}.`,
        Array.isArray(error?.issues) ? error.issues : [],
      );
      return;
    }
    const name = answer.data?.server?.name ?? body.name;
    const outcome = testText(answer.data?.test);
    tests.set(name, outcome);
    closeForm({ focus: false });
    await load();
    const edit = [...$("my-servers-list").querySelectorAll("button.edit")].find((b) => b.getAttribute("aria-label") === `Edit ${name}`);
    (create ? $("my-server-add") : (edit ?? $("my-server-add"))).focus();
    // The test's tool count is in the row; the state and count in this session follow the reconnect.
    await reconnect(`${create ? "Added" : "Saved"} “${name}”${outcome.ok ? "." : `, but: ${outcome.text}`}`);
  });

  $("msf-cancel").addEventListener("click", () => {
    closeForm();
    say("");
  });
  $("msf-add-header").addEventListener("click", () => addHeaderRow().focus());
  $("my-server-add").addEventListener("click", (event) => openForm(null, event.currentTarget));
  $("my-servers-reconnect").addEventListener("click", () => void reconnect());
  $("my-servers-close").addEventListener("click", () => dialog.close());

  const openButton = $("my-servers-open");
  openButton.addEventListener("click", async () => {
    say("Loading…", "pending");
    form.hidden = true;
    view.hidden = false;
    editing = null;
    mine = [];
    deployment = [];
    renderList();
    dialog.showModal();
    if (await load()) say("");
  });
  dialog.addEventListener("close", () => {
    closeForm({ focus: false });
    if (openButton.getClientRects().length > 0) openButton.focus();
    else $("menu-toggle").focus();
  });

  return {
    /** A `servers` frame (or the socket went away: `up` false): the rows' states follow. */
    update(servers, up) {
      live = { servers, up };
      for (const li of dialog.querySelectorAll("li[data-my-server], li[data-deployment-server]"))
        stateLine(li, li.dataset.myServer ?? li.dataset.deploymentServer);
    },
  };
}
