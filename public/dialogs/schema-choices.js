// Choices in a schema form: one of a fixed set as a <select>, several as check boxes.
// The set is `enum` (labelled by `enumNames` when given, the older form) or `oneOf` /
// `anyOf` of `{const, title}` (the titled form MCP elicitation uses); the value sent is
// the choice's own value, whatever its label says. The schema's `default` is chosen.

/**
 * The choices a property (or an array's `items`) offers, or null when it offers no fixed set.
 * @param {any} prop
 * @returns {{ value: unknown, label: string }[] | null}
 */
export function choicesOf(prop) {
  if (!prop || typeof prop !== "object") return null;
  if (Array.isArray(prop.enum)) {
    const names = Array.isArray(prop.enumNames) ? prop.enumNames : [];
    return prop.enum.map((value, i) => ({ value, label: String(names[i] ?? value) }));
  }
  const titled = Array.isArray(prop.oneOf) ? prop.oneOf : Array.isArray(prop.anyOf) ? prop.anyOf : null;
  if (!titled || titled.length === 0 || !titled.every((choice) => choice && typeof choice === "object" && "const" in choice)) return null;
  return titled.map((choice) => ({ value: choice.const, label: String(choice.title ?? choice.const) }));
}

/**
 * A <select>; its empty first option reads as "not given" (for a required field the
 * browser refuses it, so a choice is made rather than the first one taken unseen).
 * @param {{ value: unknown, label: string }[]} choices
 * @param {{ required: boolean, fallback: unknown }} options
 */
export function singleChoice(choices, { required, fallback }) {
  const select = document.createElement("select");
  select.append(new Option(required ? "Choose…" : "", ""));
  // Values as JSON, so a number or boolean choice reads back as itself.
  for (const choice of choices) select.append(new Option(choice.label, JSON.stringify(choice.value)));
  const chosen = choices.findIndex((choice) => choice.value === fallback);
  select.selectedIndex = chosen + 1;
  return { input: select, read: () => (select.value === "" ? undefined : JSON.parse(select.value)) };
}

/**
 * Check boxes, one per choice, in a group labelled by `labelId`; `minItems`/`maxItems`
 * are checked by `problem()` (a browser cannot check a count of boxes itself).
 * @param {{ value: unknown, label: string }[]} choices
 * @param {{ name: string, labelId: string, fallback: unknown, minItems?: number, maxItems?: number }} options
 */
export function multipleChoice(choices, { name, labelId, fallback, minItems, maxItems }) {
  const group = document.createElement("div");
  group.className = "choices";
  group.setAttribute("role", "group");
  group.setAttribute("aria-labelledby", labelId);
  const defaults = Array.isArray(fallback) ? fallback : [];
  const boxes = choices.map((choice) => {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = name;
    box.value = String(choice.value);
    box.checked = defaults.includes(choice.value);
    label.append(box, choice.label);
    group.append(label);
    return box;
  });
  const read = () => {
    const values = choices.filter((_, i) => boxes[i]?.checked).map((choice) => choice.value);
    return values.length > 0 ? values : undefined;
  };
  const problem = () => {
    const count = choices.filter((_, i) => boxes[i]?.checked).length;
    if (count > 0 && typeof minItems === "number" && count < minItems) return `choose at least ${minItems}`;
    if (typeof maxItems === "number" && count > maxItems) return `choose at most ${maxItems}`;
    return undefined;
  };
  return { element: group, input: boxes[0] ?? group, read, problem };
}
