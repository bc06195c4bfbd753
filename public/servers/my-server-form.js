// The form of "My servers" (my-servers.js): name and URL, then, folded under "Advanced"
// (open when one is set), transport, headers as name/value rows, timeout, always-allowed
// and included/excluded tools as comma lists, and roots (a URI and a name a line).
// Header values are write-only: the API shows stored ones as the mask "••••••", and a
// mask sent back keeps the stored value. The API's field errors (`error.issues[].path`)
// are shown next to their field, its message on top.
import { NetworkError, request } from "../core/api.js";
import { byId } from "../core/dom.js";

const $ = byId;

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
 * @param {{
 *   view: HTMLElement,
 *   say: (text: string, kind?: string) => void,
 *   saved: (name: string, create: boolean, test: unknown) => Promise<void>,
 * }} hooks
 */
export function setupServerForm(hooks) {
  const { view } = hooks;
  const form = $("my-server-form");
  const rows = $("msf-header-rows");
  /** The server being edited (null: adding one). */
  let editing = null;
  /** The button that opened the form, focused again when it closes. */
  let opener = null;
  let headerRows = 0;

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
    // A field with an error is never left folded away.
    if (form.querySelector("#msf-advanced [aria-invalid]")) $("msf-advanced").open = true;
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
    // The advanced fields are folded away unless one of them is already set.
    $("msf-advanced").open = Boolean(
      server &&
        (server.type === "sse" ||
          Object.keys(server.headers ?? {}).length > 0 ||
          server.timeout !== undefined ||
          [server.alwaysAllow, server.includeTools, server.excludeTools, server.roots].some((list) => (list ?? []).length > 0)),
    );
    $("msf-save").textContent = server ? "Save changes" : "Add server";
    view.hidden = true;
    form.hidden = false;
    hooks.say("");
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
    closeForm({ focus: false });
    await hooks.saved(answer.data?.server?.name ?? body.name, create, answer.data?.test);
  });

  $("msf-cancel").addEventListener("click", () => {
    closeForm();
    hooks.say("");
  });
  $("msf-add-header").addEventListener("click", () => addHeaderRow().focus());

  return {
    /** @param {any} server the stored entry to edit, or null to add one @param {HTMLElement | null} [from] */
    open: (server, from) => openForm(server, from),
    close: closeForm,
    /** Back to the list (the dialog opened again). */
    reset() {
      form.hidden = true;
      view.hidden = false;
      editing = null;
    },
  };
}
