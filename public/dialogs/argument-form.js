// The form a prompt's arguments or a resource template's variables are filled in
// with: one field each, required ones marked, and suggestions from the server
// (completion/complete, asked as the person types, with the other fields as
// context) shown under the field being edited.
import { byId } from "../core/dom.js";

const dialog = byId("arguments-dialog");
const form = dialog.querySelector("form");
const fieldsBox = byId("arguments-fields");
const error = byId("arguments-error");

let settle = null;

/**
 * Asks for `fields` ({name, description, required}); resolves with the values
 * (empty ones left out) or null when dismissed. `complete(name, value, context)`
 * gives suggestions, or is null when the server offers none.
 * @param {{
 *   title: string,
 *   description?: string,
 *   fields: { name: string, description?: string, required?: boolean, value?: string, maxLength?: number }[],
 *   submitLabel?: string,
 *   complete?: ((name: string, value: string, context: Record<string, string>) => Promise<any>) | null,
 * }} request
 * @returns {Promise<Record<string, string> | null>}
 */
export function askArguments({ title, description, fields, submitLabel = "Use", complete = null }) {
  settle?.(null);
  byId("arguments-title").textContent = title;
  const about = byId("arguments-description");
  about.textContent = description ?? "";
  about.hidden = !description;
  byId("arguments-submit").textContent = submitLabel;
  error.textContent = "";
  fieldsBox.replaceChildren(...fields.map((field, i) => fieldRow(field, i, complete)));
  dialog.showModal();
  fieldsBox.querySelector("input")?.focus();
  return new Promise((resolve) => {
    settle = (value) => {
      settle = null;
      resolve(value);
    };
  });
}

function values() {
  const out = {};
  for (const input of fieldsBox.querySelectorAll("input")) if (input.value.trim()) out[input.name] = input.value.trim();
  return out;
}

function fieldRow(field, index, complete) {
  const row = document.createElement("div");
  row.className = "argument-field";
  const id = `argument-${index}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = field.name;
  if (field.required) {
    const mark = document.createElement("span");
    mark.className = "required";
    mark.textContent = " (required)";
    label.append(mark);
  }
  const input = document.createElement("input");
  input.id = id;
  input.name = field.name;
  input.required = Boolean(field.required);
  input.autocomplete = "off";
  if (field.value) input.value = field.value;
  if (field.maxLength) input.maxLength = field.maxLength;
  row.append(label);
  if (field.description) {
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.id = `${id}-hint`;
    hint.textContent = field.description;
    input.setAttribute("aria-describedby", hint.id);
    row.append(input, hint);
  } else {
    row.append(input);
  }
  if (complete) {
    const suggestions = document.createElement("ul");
    suggestions.className = "suggestions";
    suggestions.setAttribute("aria-label", `Suggestions for ${field.name}`);
    row.append(suggestions);
    let asked = 0;
    const suggest = async () => {
      const ticket = ++asked;
      const context = values();
      delete context[field.name];
      let found = [];
      try {
        found = await complete(field.name, input.value, context);
      } catch {
        found = [];
      }
      // An older answer arriving late must not replace a newer one.
      if (ticket !== asked) return;
      suggestions.replaceChildren(
        ...found.slice(0, 12).map((value) => {
          const li = document.createElement("li");
          const button = document.createElement("button");
          button.type = "button";
          button.className = "suggestion";
          button.textContent = value;
          button.addEventListener("click", () => {
            input.value = value;
            suggestions.replaceChildren();
            input.focus();
          });
          li.append(button);
          return li;
        }),
      );
    };
    input.addEventListener("input", suggest);
    input.addEventListener("focus", suggest);
  }
  return row;
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const missing = [...fieldsBox.querySelectorAll("input")].filter((i) => i.required && !i.value.trim()).map((i) => i.name);
  if (missing.length > 0) {
    error.textContent = `Fill in ${missing.join(", ")}.`;
    fieldsBox.querySelector(`input[name="${CSS.escape(missing[0])}"]`)?.focus();
    return;
  }
  const result = values();
  dialog.close();
  settle?.(result);
});
byId("arguments-cancel").addEventListener("click", () => dialog.close());
dialog.addEventListener("close", () => settle?.(null));
