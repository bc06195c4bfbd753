// "My servers": the remote MCP servers a user adds at runtime (GET/POST/PUT/DELETE
// /api/my-servers), beside the deployment's own (mcp.json), which are listed
// read-only. A modal dialog (focus kept inside, Escape closes) with the list and a
// form (my-server-form.js). After a change the current session is reconnected
// (POST /api/servers/restart?session=ID), so the server panel shows it; each row
// shows the server's state and tool count in this session, from the `servers` frames.
import { NetworkError, request } from "../core/api.js";
import { setupServerForm } from "./my-server-form.js";
import { button } from "../core/buttons.js";
import { confirmAction } from "../dialogs/dialogs.js";
import { authControl } from "./oauth-sign-in.js";
import { byId } from "../core/dom.js";

/** What an error answer says went wrong, in a sentence's middle. */
const reason = (answer) => answer.data?.error?.message ?? `the server answered ${answer.status}`;

const $ = byId;

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * @param {{ sessionId: () => string | null }} options
 * @returns {{ update(servers: any[], live: boolean): void }}
 */
export function setupMyServers({ sessionId }) {
  const dialog = $("my-servers-dialog");
  const status = $("my-servers-status");
  const view = $("my-servers-view");
  /** The user's servers as GET /api/my-servers lists them (headers masked). */
  let mine = [];
  let deployment = [];
  /** The session's servers (the last `servers` frame) and whether the socket is up. */
  let live = { servers: [], up: false };
  /** Last test outcome per server name: { ok, text }. */
  const tests = new Map();

  const say = (text, kind = "") => {
    status.textContent = text;
    status.dataset.kind = kind;
  };

  // ---- the list ----

  /** "ready · 13 tools", from this session's last `servers` frame. */
  function stateOf(name) {
    if (!live.up) return { state: "unknown", text: "state unknown (not connected)" };
    const s = live.servers.find((x) => x.name === name);
    if (!s) return { state: "unknown", text: "not in this chat yet: reconnect it" };
    return { state: s.state, text: s.state === "ready" ? `${s.state} · ${plural(s.toolCount, "tool")}` : s.state, error: s.lastError, enabled: s.enabled };
  }

  function stateLine(li, name) {
    const st = stateOf(name);
    li.dataset.state = st.state;
    li.querySelector(".state").textContent = st.enabled === false ? `${st.text} · off in this chat` : st.text;
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
        button("Edit", `Edit ${server.name}`, (event) => serverForm.open(server, event.currentTarget), "edit"),
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
    say(`${lead}Reconnecting this chat…`, "pending");
    try {
      const answer = await request(`/api/servers/restart?session=${encodeURIComponent(id)}`, { method: "POST", body: {} });
      if (!answer.ok) {
        say(`${lead}This chat could not reconnect: ${reason(answer)}.`, "error");
        return;
      }
      say(`${lead}This chat is reconnected.`, "ok");
    } catch (error) {
      say(`${lead}${error instanceof NetworkError ? error.message : "This chat could not reconnect."}`, "error");
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
      text: `“${name}” will be removed from your servers, with its stored headers; your chats stop using it. This cannot be undone.`,
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

  const serverForm = setupServerForm({
    view,
    say,
    async saved(name, create, test) {
      const outcome = testText(test);
      tests.set(name, outcome);
      await load();
      const edit = [...$("my-servers-list").querySelectorAll("button.edit")].find((b) => b.getAttribute("aria-label") === `Edit ${name}`);
      (create ? $("my-server-add") : (edit ?? $("my-server-add"))).focus();
      // The test's tool count is in the row; the state and count in this session follow the reconnect.
      await reconnect(`${create ? "Added" : "Saved"} “${name}”${outcome.ok ? "." : `, but: ${outcome.text}`}`);
    },
  });
  $("my-server-add").addEventListener("click", (event) => serverForm.open(null, event.currentTarget));
  $("my-servers-reconnect").addEventListener("click", () => void reconnect());
  $("my-servers-close").addEventListener("click", () => dialog.close());

  const openButton = $("my-servers-open");
  openButton.addEventListener("click", async () => {
    say("Loading…", "pending");
    serverForm.reset();
    mine = [];
    deployment = [];
    renderList();
    dialog.showModal();
    if (await load()) say("");
  });
  dialog.addEventListener("close", () => {
    serverForm.close({ focus: false });
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
