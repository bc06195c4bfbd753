// "Instructions & presets": the person's own instructions for the model (GET/PUT
// /api/me/instructions, added after the deployment's own, never in their place) and their
// presets (GET/POST/DELETE /api/presets): a name with a model, instructions and servers,
// applied to the open chat with Apply or `/preset Name` in the composer (the
// `apply_preset` frame; the chat's `model` and `servers` frames and a notice say what
// changed). docs/presets.md.
import { describeError, request } from "../core/api.js";
import { button } from "../core/buttons.js";
import { byId as $ } from "../core/dom.js";
import { state } from "../core/state.js";

/** @typedef {{ id: string, name: string, model?: { provider: string, model: string }, instructions?: string, servers?: string[] }} Preset */
/** @typedef {(message: import("../core/types").ClientMessage) => void} Send */

/** The person's presets, as last read (for `/preset`). */
async function loadPresets() {
  const answer = await request("/api/presets");
  if (!answer.ok) throw new Error(describeError(answer.status, answer.data));
  return /** @type {Preset[]} */ (answer.data.presets);
}

/** One line saying what a preset sets. */
function summary(/** @type {Preset} */ preset) {
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
    const list = $("presets-list");
    list.replaceChildren();
    for (const preset of /** @type {Preset[]} */ (presets.data.presets)) {
      const li = document.createElement("li");
      const what = document.createElement("span");
      what.className = "name";
      what.textContent = `${preset.name} · ${summary(preset)}`;
      const apply = button("Apply", `Apply ${preset.name} to this chat`, () => {
        send({ type: "apply_preset", id: preset.id });
        say(`Applying ${preset.name} to this chat.`);
      });
      apply.disabled = !state.sessionId;
      li.append(
        what,
        apply,
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
    say(`Deleted ${preset.name}.`);
    await refresh();
  }

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
    if (field("model").checked && state.model) body.model = { provider: state.model.provider, model: state.model.model };
    const answer = await request("/api/presets", { method: "POST", body });
    if (!answer.ok) {
      $("pf-error").textContent = describeError(answer.status, answer.data);
      return;
    }
    $("pf-error").textContent = "";
    /** @type {HTMLFormElement} */ ($("preset-form")).reset();
    say(`Saved ${answer.data.preset.name}: apply it here, or with /preset ${answer.data.preset.name} in any chat.`);
    await refresh();
  });

  $("presets-close").addEventListener("click", () => dialog.close());
  $("presets-open").addEventListener("click", () => {
    say("");
    $("pf-error").textContent = "";
    // The servers this chat has, as a hint for the preset's list.
    field("servers").placeholder = state.servers.map((s) => s.name).join(", ");
    $("pf-model-label").textContent = state.model ? `Use this chat's model (${state.model.provider}/${state.model.model})` : "Use this chat's model";
    // Read-only until its saved text arrives (the first opening; later ones keep what is there).
    if (!edited && !loaded) instructions.readOnly = true;
    dialog.showModal();
    void refresh().then(() => {
      loaded = true;
    });
  });
}
