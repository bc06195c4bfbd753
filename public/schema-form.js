// Builds a form from a JSON Schema (tool inputs, elicitation requests) and reads
// the values back as typed JSON. Handles the shapes tools use: strings, numbers,
// integers, booleans, enums, arrays of scalars; anything else is a JSON textarea.
// `read.missing()` names the required fields left empty (and marks them invalid),
// so a caller can say so before it asks for anything else.

let counter = 0;

export function buildSchemaForm(container, schema) {
  container.replaceChildren();
  const properties = schema?.properties || {};
  const required = new Set(schema?.required || []);
  const readers = [];
  const names = Object.keys(properties);
  if (names.length === 0) {
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = "This tool takes no arguments.";
    container.append(p);
  }
  for (const name of names) {
    const prop = properties[name] || {};
    const id = `field-${++counter}`;
    const row = document.createElement("div");
    row.className = "field";
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = `${prop.title || name}${required.has(name) ? " *" : ""}`;
    row.append(label);
    const type = Array.isArray(prop.type) ? prop.type.find((t) => t !== "null") : prop.type;
    let input;
    let read;
    if (Array.isArray(prop.enum)) {
      input = document.createElement("select");
      if (!required.has(name)) input.append(new Option("", ""));
      for (const value of prop.enum) input.append(new Option(String(value), JSON.stringify(value)));
      read = () => (input.value === "" ? undefined : JSON.parse(input.value));
    } else if (type === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = prop.default === true;
      read = () => input.checked;
    } else if (type === "number" || type === "integer") {
      input = document.createElement("input");
      input.type = "number";
      if (type === "integer") input.step = "1";
      if (prop.default !== undefined) input.value = String(prop.default);
      read = () => (input.value === "" ? undefined : Number(input.value));
    } else if (type === "array" && prop.items && ["string", "number", "integer"].includes(prop.items.type)) {
      input = document.createElement("textarea");
      input.rows = 3;
      input.placeholder = "one value per line";
      read = () => {
        const values = input.value
          .split("\n")
          .map((v) => v.trim())
          .filter(Boolean);
        if (values.length === 0) return undefined;
        return prop.items.type === "string" ? values : values.map(Number);
      };
    } else if (type === "string" || type === undefined) {
      input = document.createElement("input");
      input.type = prop.format === "email" ? "email" : prop.format === "date" ? "date" : "text";
      if (prop.default !== undefined) input.value = String(prop.default);
      read = () => (input.value === "" ? undefined : input.value);
    } else {
      input = document.createElement("textarea");
      input.rows = 3;
      input.placeholder = "JSON";
      read = () => {
        if (!input.value.trim()) return undefined;
        try {
          return JSON.parse(input.value);
        } catch {
          throw new Error(`${name}: not valid JSON`);
        }
      };
    }
    input.id = id;
    input.name = name;
    if (required.has(name) && input.type !== "checkbox") input.required = true;
    row.append(input);
    if (prop.description) {
      const hint = document.createElement("small");
      hint.textContent = prop.description;
      row.append(hint);
    }
    container.append(row);
    readers.push([name, read, input, prop.title || name]);
    input.addEventListener("input", () => input.removeAttribute("aria-invalid"));
  }
  const readAll = () => {
    const values = {};
    for (const [name, read] of readers) {
      const value = read();
      if (value !== undefined) values[name] = value;
    }
    return values;
  };
  /** Required fields with no value: [{ name, label, input }]; each gets aria-invalid. */
  readAll.missing = () => {
    const missing = [];
    for (const [name, read, input, label] of readers) {
      if (!required.has(name) || input.type === "checkbox") continue;
      let value;
      try {
        value = read();
      } catch {
        continue; // present but unreadable: read() reports it
      }
      const empty = value === undefined || (typeof value === "string" && value.trim() === "");
      if (empty) {
        input.setAttribute("aria-invalid", "true");
        missing.push({ name, label, input });
      } else input.removeAttribute("aria-invalid");
    }
    return missing;
  };
  return readAll;
}
