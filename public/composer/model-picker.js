// The session's model: the picker in the header (the models the caller may choose, from
// GET /api/models, grouped by provider), ⚙ for the chosen model's settings (temperature,
// output limit, prompted tool mode) and `/model` in the message box. A choice is sent as
// `set_model`; the session answers every socket with `model`, which the picker shows.
import { request } from "../core/api.js";
import { byId } from "../core/dom.js";
import { state, subscribe, update } from "../core/state.js";
import { noteModelSetup } from "../servers/no-model.js";
import { isOwner } from "../people/roles.js";

/** @typedef {import("../core/types").ModelChoice} ModelChoice */
/** @typedef {import("../core/types").ModelOption} ModelOption */
/** @typedef {{ models: ModelOption[], setup?: import("../servers/no-model-command.js").ModelSetup }} ModelList */

const select = /** @type {HTMLSelectElement} */ (byId("model"));
const dialog = /** @type {HTMLDialogElement} */ (byId("model-dialog"));

const refText = (/** @type {{provider: string, model: string}} */ ref) => `${ref.provider}/${ref.model}`;

/** Reads the models the caller may choose (again after their own providers changed). */
export async function loadModels() {
  const { ok, data } = await request("/api/models").catch(() => ({ ok: false, data: null }));
  if (ok && data) showModels(data);
}

/** The models the caller may choose, as GET /api/models (or GET /api/bootstrap's `models`) lists them. */
export function showModels(/** @type {ModelList} */ data) {
  update({ models: data.models });
  // With no model, how the Worker runs: the no-model notice names the command for it.
  noteModelSetup(data.setup);
}

/**
 * `/model` alone lists the models; `/model name` (a `provider/model`, or a model name only one provider has) chooses one.
 * @param {string} text the message box's text
 * @param {{ choose: (ref: {provider: string, model: string}) => void, say: (text: string, kind: "notice" | "error") => void }} out
 * @returns {boolean} whether the text was a `/model` command
 */
export function modelCommand(text, out) {
  const match = /^\/model(?:\s+(\S+))?\s*$/.exec(text);
  if (!match) return false;
  const wanted = match[1];
  const names = state.models.map(refText);
  if (!wanted) {
    const now = state.model ? refText(state.model) : "none";
    out.say(`Model: ${now}. Choose with /model provider/model, or in the header. Offered: ${names.join(", ") || "none"}.`, "notice");
    select.focus();
    return true;
  }
  const found = state.models.filter((m) => refText(m) === wanted || m.model === wanted);
  const option = found.length === 1 ? found[0] : found.find((m) => refText(m) === wanted);
  if (!option) {
    out.say(
      found.length > 1
        ? `"${wanted}" is offered by several providers: say which (${found.map(refText).join(", ")}).`
        : `No model "${wanted}" is offered here. Offered: ${names.join(", ") || "none"}.`,
      "error",
    );
    return true;
  }
  out.choose({ provider: option.provider, model: option.model });
  return true;
}

/** @param {{ send: (message: import("../core/types").Outgoing<"set_model">) => void }} socket */
export function setupModelPicker(socket) {
  /** Chooses a model; its settings start empty (they belong to the model). */
  const choose = (/** @type {{provider: string, model: string}} */ ref) => socket.send({ type: "set_model", provider: ref.provider, model: ref.model });

  select.addEventListener("change", () => {
    const option = state.models.find((m) => refText(m) === select.value);
    if (option) choose(option);
  });

  byId("model-settings").addEventListener("click", () => {
    const current = state.model;
    if (!current) return;
    byId("model-dialog-which").textContent = refText(current);
    /** @type {HTMLInputElement} */ (byId("model-temperature")).value = current.temperature === undefined ? "" : String(current.temperature);
    /** @type {HTMLInputElement} */ (byId("model-max-tokens")).value = current.maxOutputTokens === undefined ? "" : String(current.maxOutputTokens);
    /** @type {HTMLInputElement} */ (byId("model-prompted")).checked = current.toolMode === "prompted";
    dialog.showModal();
  });

  dialog.addEventListener("close", () => {
    const current = state.model;
    if (dialog.returnValue !== "save" || !current) return;
    const temperature = /** @type {HTMLInputElement} */ (byId("model-temperature")).value;
    const maxTokens = /** @type {HTMLInputElement} */ (byId("model-max-tokens")).value;
    const prompted = /** @type {HTMLInputElement} */ (byId("model-prompted")).checked;
    socket.send({
      type: "set_model",
      provider: current.provider,
      model: current.model,
      ...(temperature !== "" ? { temperature: Number(temperature) } : {}),
      ...(maxTokens !== "" ? { maxOutputTokens: Math.round(Number(maxTokens)) } : {}),
      toolMode: prompted ? "prompted" : "native",
    });
  });

  subscribe(["models", "model", "you"], () => {
    const current = state.model;
    select.replaceChildren();
    if (!current && state.models.length === 0) {
      select.append(new Option("no model", ""));
      select.disabled = true;
      byId("model-settings").hidden = true;
      return;
    }
    // A shared chat's model is its owner's to choose (docs/people.md): shown, not offered.
    select.disabled = !isOwner();
    byId("model-settings").hidden = !current || !isOwner();
    /** @type {Map<string, HTMLOptGroupElement>} */
    const groups = new Map();
    const options = [...state.models];
    // The session's model stays shown even when the list does not have it (not loaded yet, or no longer offered).
    if (current && !options.some((m) => refText(m) === refText(current))) {
      options.unshift({ provider: current.provider, model: current.model, providerLabel: current.provider, source: "deployment" });
    }
    for (const option of options) {
      const label = option.source === "user" ? `${option.providerLabel} (yours)` : option.providerLabel;
      let group = groups.get(label);
      if (!group) {
        group = document.createElement("optgroup");
        group.label = label;
        groups.set(label, group);
        select.append(group);
      }
      group.append(new Option(option.model, refText(option)));
    }
    select.value = current ? refText(current) : "";
    select.title = current ? `This chat's model: ${refText(current)} (or type /model in the message box)` : "Choose a model";
  });

  return { choose, loadModels };
}
