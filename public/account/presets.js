// "Instructions & presets": the person's own instructions for the model (GET/PUT
// /api/me/instructions, added after the deployment's own, never in their place) and their
// presets (GET/POST/PUT/DELETE /api/presets): a name with a model, instructions and servers,
// applied to the open chat with Apply, `/preset Name` in the composer or a chip of a new
// chat's welcome (the `apply_preset` frame; the chat's `model` and `servers` frames and a
// notice say what changed). Edit fills the form with a preset and saves it in its place.
// The list as last read (the load's GET /api/bootstrap, then each refresh of the dialog) is
// kept here for the welcome, so a new chat asks nothing to offer them. docs/presets.md.
import { describeError, request } from "../core/api.js";
import { button } from "../core/buttons.js";
import { byId as $ } from "../core/dom.js";
import { state } from "../core/state.js";

/** @typedef {{ id: string, name: string, model?: { provider: string, model: string }, instructions?: string, servers?: string[] }} Preset */
/** @typedef {(message: import("../core/types").ClientMessage) => void} Send */

/** The person's presets as last read, and who shows them (the welcome). */
/** @type {Preset[]} */
let known = [];
/** @type {Set<(presets: Preset[]) => void>} */
const watchers = new Set();
/** The open chat's socket (setupPresets). @type {Send} */
let sendFrame = () => {};

/** The presets as the load's GET /api/bootstrap or a later read listed them. @param {Preset[]} presets */
export function knowPresets(presets) {
  known = presets;
  for (const watcher of watchers) watcher(known);
}

/** Calls `show` with the presets now and after each change. @param {(presets: Preset[]) => void} show */
export function watchPresets(show) {
  watchers.add(show);
  show(known);
}

/** Applies `preset` to the open chat (its socket; the chat's frames and notice say what changed). @param {Preset} preset */
export function applyToChat(preset) {
  sendFrame({ type: "apply_preset", id: preset.id });
}

/** The person's presets, read now (for `/preset`). */
async function loadPresets() {
  const answer = await request("/api/presets");
  if (!answer.ok) throw new Error(describeError(answer.status, answer.data));
  knowPresets(answer.data.presets);
  return /** @type {Preset[]} */ (answer.data.presets);
}

/** One line saying what a preset sets. */
export function summary(/** @type {Preset} */ preset) {
  const parts = [];
  if (preset.model) parts.push(`${preset.model.provider}/${preset.model.model}`);
  if (preset.servers) parts.push(preset.servers.length > 0 ? `servers: ${preset.servers.join(", ")}` : "no servers");
  if (preset.instructions) parts.push("instructions");
  return parts.length > 0 ? parts.join(" · ") : "nothing set";
}

/**
 * `/preset` lists the presets in the chat; `/preset Name` applies the one of that name. True
 * when `text` was the command (it is never a message).
 * @param {string} text
 * @param {{ send: Send, say: (line: string, kind?: "notice" | "error") => void }} actions
 */
export function presetCommand(text, actions) {
  const match = /^\/preset(?:\s+(.*))?$/is.exec(text.trim());
  if (!match) return false;
  const wanted = (match[1] ?? "").trim().toLowerCase();
  void loadPresets()
    .then((presets) => {
      if (!wanted) {
        if (presets.length === 0) return actions.say("You have no presets yet: make one in Instructions & presets.", "notice");
        return actions.say(`Your presets: ${presets.map((p) => `${p.name} (${summary(p)})`).join("; ")}. Type /preset Name to apply one.`, "notice");
      }
      const preset = presets.find((p) => p.name.toLowerCase() === wanted);
      if (!preset) return actions.say(`You have no preset “${match[1]?.trim()}”. Type /preset to list yours.`, "error");
      actions.send({ type: "apply_preset", id: preset.id });
    })
    .catch((/** @type {Error} */ error) => actions.say(error.message, "error"));
  return true;
}

/** @param {{ send: Send }} options */
export function setupPresets({ send }) {
  sendFrame = send;
  const dialog = /** @type {HTMLDialogElement} */ ($("presets-dialog"));
  const instructions = /** @type {HTMLTextAreaElement} */ ($("instructions-text"));
  const field = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ ($(`pf-${name}`));
  // Success is said in the plain text colour: the status line's green is under 4.5:1 on white (axe).
  const say = (/** @type {string} */ text, kind = "") => {
    $("presets-status").textContent = text;
    $("presets-status").dataset.kind = kind;
  };

  // What the person typed since the saved text last arrived: a refresh never writes over it.
  let edited = false;
  let loaded = false;
  instructions.addEventListener("input", () => {
    edited = true;
  });

  async function refresh() {
    const [mine, presets] = await Promise.all([request("/api/me/instructions"), request("/api/presets")]);
    // Editable once the saved text is in: typed before it, it would be written over (or saved blank over it).
    instructions.readOnly = false;
    if (!mine.ok) return say(describeError(mine.status, mine.data), "error");
    if (!presets.ok) return say(describeError(presets.status, presets.data), "error");
    if (!edited) instructions.value = mine.data.instructions;
    knowPresets(presets.data.presets);
    const list = $("presets-list");
    list.replaceChildren();
    for (const preset of /** @type {Preset[]} */ (presets.data.presets)) {
      const li = document.createElement("li");
      const what = document.createElement("span");
      what.className = "name";
      what.textContent = `${preset.name} · ${summary(preset)}`;
      const apply = button("Apply", `Apply ${preset.name} to this chat`, () => {
        applyToChat(preset);
        say(`Applying ${preset.name} to this chat.`);
      });
      apply.disabled = !state.sessionId;
      li.append(
        what,
        apply,
        button("Edit", `Edit ${preset.name}`, () => edit(preset)),
        button("Delete", `Delete ${preset.name}`, () => void remove(preset)),
      );
      list.append(li);
    }
    if (presets.data.presets.length === 0) {
      const li = document.createElement("li");
      li.className = "hint";
      li.textContent = "None yet: add one below.";
      list.append(li);
    }
  }

  async function remove(/** @type {Preset} */ preset) {
    const answer = await request(`/api/presets/${encodeURIComponent(preset.id)}`, { method: "DELETE" });
    if (!answer.ok) return say(describeError(answer.status, answer.data), "error");
    if (editing?.id === preset.id) stopEditing();
    say(`Deleted ${preset.name}.`);
    await refresh();
  }

  /** The preset the form edits (saved with PUT in its place); undefined: the form adds one. @type {Preset | undefined} */
  let editing;

  /** The model line: an edited preset keeps its own model (or gets none), a new one may take the chat's. */
  function modelLabel() {
    const model = editing ? editing.model : state.model;
    const named = model ? ` (${model.provider}/${model.model})` : "";
    $("pf-model-label").textContent = editing ? (editing.model ? `Keep its model${named}` : "No model: the chat's stays") : `Use this chat's model${named}`;
    field("model").disabled = Boolean(editing && !editing.model);
  }

  /** Fills the form with `preset`, to save in its place. @param {Preset} preset */
  function edit(preset) {
    editing = preset;
    field("name").value = preset.name;
    field("instructions").value = preset.instructions ?? "";
    field("servers").value = (preset.servers ?? []).join(", ");
    field("model").checked = Boolean(preset.model);
    modelLabel();
    $("pf-title").textContent = `Edit ${preset.name}`;
    $("pf-submit").textContent = "Save preset";
    $("pf-cancel").hidden = false;
    $("pf-error").textContent = "";
    field("name").focus();
  }

  function stopEditing() {
    editing = undefined;
    /** @type {HTMLFormElement} */ ($("preset-form")).reset();
    modelLabel();
    $("pf-title").textContent = "Add a preset";
    $("pf-submit").textContent = "Add preset";
    $("pf-cancel").hidden = true;
  }

  $("pf-cancel").addEventListener("click", () => {
    stopEditing();
    field("name").focus();
  });

  $("instructions-form").addEventListener("submit", async (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    const answer = await request("/api/me/instructions", { method: "PUT", body: { instructions: instructions.value } });
    if (!answer.ok) return say(describeError(answer.status, answer.data), "error");
    instructions.value = answer.data.instructions;
    edited = false;
    say("Instructions saved: your chats use them from their next message.");
  });

  $("preset-form").addEventListener("submit", async (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    /** @type {Record<string, unknown>} */
    const body = { name: field("name").value.trim() };
    if (field("instructions").value.trim()) body.instructions = field("instructions").value.trim();
    const servers = field("servers")
      .value.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (servers.length > 0) body.servers = servers;
    const model = editing ? editing.model : state.model;
    if (field("model").checked && model) body.model = { provider: model.provider, model: model.model };
    // An edit replaces the preset whole (PUT), keeping its place in the list.
    const answer = editing
      ? await request(`/api/presets/${encodeURIComponent(editing.id)}`, { method: "PUT", body })
      : await request("/api/presets", { method: "POST", body });
    if (!answer.ok) {
      $("pf-error").textContent = describeError(answer.status, answer.data);
      return;
    }
    $("pf-error").textContent = "";
    const was = editing;
    stopEditing();
    const name = answer.data.preset.name;
    say(
      was
        ? `Saved ${name}: chats it was applied to keep what it was; apply it again to change them.`
        : `Saved ${name}: apply it here, or with /preset ${name} in any chat.`,
    );
    await refresh();
  });

  $("presets-close").addEventListener("click", () => dialog.close());
  $("presets-open").addEventListener("click", () => {
    say("");
    $("pf-error").textContent = "";
    // The servers this chat has, as a hint for the preset's list.
    field("servers").placeholder = state.servers.map((s) => s.name).join(", ");
    modelLabel();
    // Read-only until its saved text arrives (the first opening; later ones keep what is there).
    if (!edited && !loaded) instructions.readOnly = true;
    dialog.showModal();
    void refresh().then(() => {
      loaded = true;
    });
  });
}
