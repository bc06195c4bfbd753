// Builds a form from a JSON Schema (a tool's inputs in the console, a server's question)
// and reads the values back as typed JSON. Handles the shapes tools and elicitation use:
// strings (with their format and length), numbers (decimals) and integers (whole), with
// their range, booleans (a check box with its words beside it), one choice or several of
// a fixed set (schema-choices.js: radios or a select, check boxes), arrays of scalars;
// anything else is a JSON textarea. Each field starts at the schema's `default`, so what
// the server suggests is what is shown and sent.
// `read.missing()` names the required fields left empty (and marks them invalid);
// `read.problems()` adds what a browser cannot check itself (how many choices), so a
// caller can say so before it asks for anything else.
import { boxLabel, choicesOf, multipleChoice, singleChoice } from "./schema-choices.js";

let counter = 0;

const STRING_INPUT = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

/** `2026-12-01T09:30:00Z` as a datetime-local input shows it: the person's own time, to the minute. */
function localTime(iso) {
  const at = new Date(String(iso));
  if (Number.isNaN(at.getTime())) return "";
  const two = (n) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}`;
}

/**
 * A date-time (RFC 3339, as the spec's `date-time` format asks) picked in local time and
 * sent in UTC; the server's own default, left as shown, is sent exactly as it came.
 */
function dateTimeField(input, fallback) {
  const shown = fallback === undefined ? "" : localTime(fallback);
  input.value = shown;
  const read = () => {
    if (input.value === "") return undefined;
    if (input.value === shown) return fallback;
    const at = new Date(input.value);
    return Number.isNaN(at.getTime()) ? input.value : at.toISOString();
  };
  return { input, read };
}

/** One field: its input, how it reads, and (for some) a problem a browser does not see. */
function fieldFor(prop, { name, id, required, roomy }) {
  const type = Array.isArray(prop.type) ? prop.type.find((t) => t !== "null") : prop.type;
  const fallback = prop.default;
  const choices = choicesOf(prop);
  if (choices && type !== "array") return singleChoice(choices, { name, labelId: `${id}-label`, required, fallback, roomy });
  const itemChoices = type === "array" ? choicesOf(prop.items) : null;
  if (itemChoices) return multipleChoice(itemChoices, { name, labelId: `${id}-label`, fallback, minItems: prop.minItems, maxItems: prop.maxItems });
  if (type === "boolean") {
    const input = document.createElement("input");
    input.type = "checkbox";
    input.checked = fallback === true;
    // The box and its words in one <label>, side by side: the label is the field's own.
    const element = boxLabel(input, `${prop.title || name}${required ? " *" : ""}`);
    return { input, element, boolean: true, read: () => input.checked };
  }
  if (type === "number" || type === "integer") {
    const input = document.createElement("input");
    input.type = "number";
    // Without `any` the browser's step of 1 refuses 3.14, a server's own default included.
    input.step = type === "integer" ? "1" : "any";
    if (typeof prop.minimum === "number") input.min = String(prop.minimum);
    if (typeof prop.maximum === "number") input.max = String(prop.maximum);
    if (typeof fallback === "number") input.value = String(fallback);
    // The range as a hint in the empty box; the browser refuses a value outside it.
    if (typeof prop.minimum === "number" && typeof prop.maximum === "number") input.placeholder = `${prop.minimum}–${prop.maximum}`;
    return { input, read: () => (input.value === "" ? undefined : Number(input.value)) };
  }
  if (type === "array" && prop.items && ["string", "number", "integer"].includes(prop.items.type)) {
    const input = document.createElement("textarea");
    input.rows = 3;
    input.placeholder = "one value per line";
    if (Array.isArray(fallback)) input.value = fallback.join("\n");
    const read = () => {
      const values = input.value
        .split("\n")
        .map((v) => v.trim())
        .filter(Boolean);
      if (values.length === 0) return undefined;
      return prop.items.type === "string" ? values : values.map(Number);
    };
    return { input, read };
  }
  if (type === "string" || type === undefined) {
    const input = document.createElement("input");
    input.type = STRING_INPUT[prop.format] ?? "text";
    if (typeof prop.minLength === "number") input.minLength = prop.minLength;
    if (typeof prop.maxLength === "number") input.maxLength = prop.maxLength;
    if (prop.format === "date-time") return dateTimeField(input, fallback);
    if (fallback !== undefined) input.value = String(fallback);
    return { input, read: () => (input.value === "" ? undefined : input.value) };
  }
  const input = document.createElement("textarea");
  input.rows = 3;
  input.placeholder = "JSON";
  if (fallback !== undefined) input.value = JSON.stringify(fallback, null, 2);
  const read = () => {
    if (!input.value.trim()) return undefined;
    try {
      return JSON.parse(input.value);
    } catch {
      throw new Error(`${name}: not valid JSON`);
    }
  };
  return { input, read };
}

/**
 * @param {HTMLElement} container
 * @param {any} schema
 * @param {{ roomy?: boolean }} [options] roomy: a few choices as radio buttons (a dialog a
 *   person answers); without it a <select> each (the tool console's narrow panel)
 */
export function buildSchemaForm(container, schema, { roomy = false } = {}) {
  container.replaceChildren();
  const properties = schema?.properties || {};
  const required = new Set(schema?.required || []);
  /** @type {{ name: string, label: string, input: HTMLElement, read: () => unknown, problem?: () => string | undefined, required: boolean, boolean: boolean }[]} */
  const fields = [];
  const names = Object.keys(properties);
  if (names.length === 0) {
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = "This tool takes no arguments.";
    container.append(p);
  }
  if (names.some((name) => required.has(name))) {
    const p = document.createElement("p");
    p.className = "hint required-note";
    p.textContent = "Fields marked * are required.";
    container.append(p);
  }
  for (const name of names) {
    const prop = properties[name] || {};
    const id = `field-${++counter}`;
    const isRequired = required.has(name);
    const row = document.createElement("div");
    row.className = "field";
    const field = fieldFor(prop, { name, id, required: isRequired, roomy });
    const isBoolean = field.boolean === true;
    row.classList.toggle("boolean", isBoolean);
    if (!field.element || isBoolean) {
      field.input.id = id;
      field.input.setAttribute("name", name);
    }
    // A group of choices is named by its heading; a single input by its <label>; a check box by the words beside it.
    if (!isBoolean) {
      const label = document.createElement(field.element ? "span" : "label");
      label.id = `${id}-label`;
      if (label instanceof HTMLLabelElement) label.htmlFor = id;
      label.textContent = `${prop.title || name}${isRequired ? " *" : ""}`;
      row.append(label);
    }
    const shown = field.element ?? field.input;
    // A required boolean is answered unchecked too (false); a group's count is checked by problem().
    if (isRequired && !isBoolean && !field.element) field.input.setAttribute("required", "");
    row.append(shown);
    if (prop.description) {
      const hint = document.createElement("small");
      hint.id = `${id}-hint`;
      hint.textContent = prop.description;
      (field.element && !isBoolean ? field.element : field.input).setAttribute("aria-describedby", hint.id);
      row.append(hint);
    }
    container.append(row);
    fields.push({ name, label: prop.title || name, input: field.input, read: field.read, problem: field.problem, required: isRequired, boolean: isBoolean });
    const invalidOf = field.element ?? field.input;
    shown.addEventListener("input", () => invalidOf.removeAttribute("aria-invalid"));
    shown.addEventListener("change", () => invalidOf.removeAttribute("aria-invalid"));
  }
  const readAll = () => {
    /** @type {Record<string, unknown>} */
    const values = {};
    for (const { name, read } of fields) {
      const value = read();
      if (value !== undefined) values[name] = value;
    }
    return values;
  };
  const marked = (field) => field.input.closest(".choices") ?? field.input;
  /** Required fields with no value: [{ name, label, input }]; each gets aria-invalid. */
  readAll.missing = () => {
    const missing = [];
    for (const field of fields) {
      if (!field.required || field.boolean) continue;
      let value;
      try {
        value = field.read();
      } catch {
        continue; // present but unreadable: read() reports it
      }
      const empty = value === undefined || (typeof value === "string" && value.trim() === "");
      if (empty) {
        marked(field).setAttribute("aria-invalid", "true");
        missing.push({ name: field.name, label: field.label, input: field.input });
      } else marked(field).removeAttribute("aria-invalid");
    }
    return missing;
  };
  /** Everything wrong before sending: missing required fields, then counts of choices: [{ label, input, message }]. */
  readAll.problems = () => {
    const problems = readAll.missing().map((m) => ({ label: m.label, input: m.input, message: "fill it in" }));
    for (const field of fields) {
      const message = field.problem?.();
      if (!message) continue;
      marked(field).setAttribute("aria-invalid", "true");
      problems.push({ label: field.label, input: field.input, message });
    }
    return problems;
  };
  return readAll;
}
