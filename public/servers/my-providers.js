// "My providers": model providers a user adds with their own key (GET/POST/PUT/DELETE
// /api/my-providers). The key is write-only: a stored one shows as •••••• and is kept
// when the mask is sent back. "Test" tries the entry as typed (POST /api/my-providers/test:
// its models, then a short answer) before anything is saved. After a change the model
// picker's list is read again.
import { describeError, NetworkError, request } from "../core/api.js";
import { button } from "../core/buttons.js";
import { confirmAction } from "../dialogs/dialogs.js";
import { byId as $ } from "../core/dom.js";

const MASK = "••••••";

/** @param {{ changed: () => void }} options */
export function setupMyProviders({ changed }) {
  const dialog = /** @type {HTMLDialogElement} */ ($("my-providers-dialog"));
  const form = /** @type {HTMLFormElement} */ ($("my-provider-form"));
  /** The provider being edited (its id), or null when adding. */
  let editing = null;

  const say = (/** @type {string} */ text, kind = "") => {
    $("my-providers-status").textContent = text;
    $("my-providers-status").dataset.kind = kind;
  };
  const field = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ ($(`mpf-${name}`));

  /** The form as the API takes it; empty fields left out. */
  function entry() {
    const list = (/** @type {string} */ text) =>
      text
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    const models = list(field("models").value);
    /** @type {Record<string, unknown>} */
    const out = { id: field("id").value.trim(), kind: field("kind").value };
    if (field("baseUrl").value.trim()) out.baseUrl = field("baseUrl").value.trim();
    if (field("apiKey").value) out.apiKey = field("apiKey").value;
    if (models.length > 0) out.models = models;
    if (field("defaultModel").value.trim()) out.defaultModel = field("defaultModel").value.trim();
    return out;
  }

  function fill(provider) {
    editing = provider?.id ?? null;
    $("my-provider-form-title").textContent = provider ? `Edit ${provider.id}` : "Add a provider";
    field("id").value = provider?.id ?? "";
    field("id").readOnly = Boolean(provider);
    field("kind").value = provider?.kind ?? "openai";
    field("baseUrl").value = provider?.baseUrl ?? "";
    field("apiKey").value = provider?.apiKey ?? "";
    field("models").value = (provider?.models ?? []).join(", ");
    field("defaultModel").value = provider?.defaultModel ?? "";
    $("mpf-error").textContent = "";
    $("mpf-test").textContent = "";
  }

  async function refresh() {
    try {
      const answer = await request("/api/my-providers");
      if (!answer.ok) return say(describeError(answer.status, answer.data), "error");
      const list = $("my-providers-list");
      list.replaceChildren();
      for (const provider of answer.data.providers) {
        const li = document.createElement("li");
        const what = document.createElement("span");
        what.className = "name";
        what.textContent = `${provider.id} · ${provider.kind}${provider.baseUrl ? ` · ${provider.baseUrl}` : ""}${provider.apiKey ? " · key ••••••" : ""}`;
        li.append(
          what,
          button("Edit", `Edit ${provider.id}`, () => fill(provider)),
          button("Remove", `Remove ${provider.id}`, () => void remove(provider.id)),
        );
        list.append(li);
      }
      if (answer.data.providers.length === 0) {
        const li = document.createElement("li");
        li.className = "hint";
        li.textContent = "None yet: add one below.";
        list.append(li);
      }
    } catch (error) {
      say(error instanceof NetworkError ? error.message : String(error), "error");
    }
  }

  async function remove(id) {
    if (!(await confirmAction({ title: `Remove ${id}?`, text: "Its key is forgotten; chats using it go back to the deployment's model.", confirm: "Remove" })))
      return;
    const answer = await request(`/api/my-providers/${encodeURIComponent(id)}`, { method: "DELETE" });
    say(answer.ok ? `Removed ${id}.` : describeError(answer.status, answer.data), answer.ok ? "" : "error");
    if (editing === id) fill(null);
    await refresh();
    changed();
  }

  $("mpf-test-button").addEventListener("click", async () => {
    const out = $("mpf-test");
    out.textContent = "Testing…";
    out.dataset.kind = "";
    const answer = await request("/api/my-providers/test", { method: "POST", body: entry() }).catch((e) => ({
      ok: false,
      status: 0,
      data: { error: { message: e.message } },
    }));
    if (!answer.ok) {
      out.textContent = describeError(answer.status, answer.data);
      out.dataset.kind = "error";
      return;
    }
    const test = answer.data.test;
    const models = test.models.length > 0 ? ` Models: ${test.models.slice(0, 12).join(", ")}${test.models.length > 12 ? "…" : ""}.` : "";
    out.textContent = test.ok ? `Works: ${test.model} answered "${test.reply}".${models}` : `Failed: ${test.error}`;
    out.dataset.kind = test.ok ? "ok" : "error";
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = entry();
    const answer = editing
      ? await request(`/api/my-providers/${encodeURIComponent(editing)}`, { method: "PUT", body })
      : await request("/api/my-providers", { method: "POST", body });
    if (!answer.ok) {
      $("mpf-error").textContent = describeError(answer.status, answer.data);
      return;
    }
    say(`Saved ${answer.data.provider.id}: choose its models in the header's picker.`, "ok");
    fill(null);
    await refresh();
    changed();
  });

  $("mpf-reset").addEventListener("click", () => fill(null));
  $("my-providers-close").addEventListener("click", () => dialog.close());
  $("my-providers-open").addEventListener("click", () => {
    fill(null);
    say("");
    dialog.showModal();
    void refresh();
  });
  // A stored key shows as the mask; typing replaces it whole.
  field("apiKey").addEventListener("focus", () => {
    if (field("apiKey").value === MASK) field("apiKey").select();
  });
}
