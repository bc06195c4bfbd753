// Choices in a schema form: one of a fixed set as radio buttons when they are few (all
// seen at once, one tap each) or a <select> when they are many, several as check boxes.
// The set is `enum` (labelled by `enumNames` when given, the older form) or `oneOf` /
// `anyOf` of `{const, title}` (the titled form MCP elicitation uses); the value sent is
// the choice's own value, whatever its label says. The schema's `default` is chosen.

/** At most this many choices are radio buttons; more are a <select>. */
export const RADIO_LIMIT = 5;

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
 * A <label> holding a box (radio or check box) and its words, so the two sit side by side
 * and a tap on the words ticks the box.
 * @param {HTMLInputElement} box @param {string} text
 */
export function boxLabel(box, text) {
  const label = document.createElement("label");
  label.className = "choice";
  const words = document.createElement("span");
  words.className = "choice-text";
  words.textContent = text;
  label.append(box, words);
  return label;
}

/**
 * One of a fixed set: radio buttons (up to RADIO_LIMIT, where the form has room for them) or a <select>.
 * @param {{ value: unknown, label: string }[]} choices
 * @param {{ name: string, labelId: string, required: boolean, fallback: unknown, roomy: boolean }} options
 */
export function singleChoice(choices, { name, labelId, required, fallback, roomy }) {
  return roomy && choices.length <= RADIO_LIMIT ? radios(choices, { name, labelId, required, fallback }) : selectOf(choices, { required, fallback });
}

/**
 * A <select>; its empty first option reads as "not given" (for a required field the
 * browser refuses it, so a choice is made rather than the first one taken unseen).
 * @param {{ value: unknown, label: string }[]} choices
 * @param {{ required: boolean, fallback: unknown }} options
 */
function selectOf(choices, { required, fallback }) {
  const select = document.createElement("select");
  select.append(new Option(required ? "Choose…" : "", ""));
  // Values as JSON, so a number or boolean choice reads back as itself.
  for (const choice of choices) select.append(new Option(choice.label, JSON.stringify(choice.value)));
  const chosen = choices.findIndex((choice) => choice.value === fallback);
  select.selectedIndex = chosen + 1;
  return { input: select, read: () => (select.value === "" ? undefined : JSON.parse(select.value)) };
}

/**
 * Radio buttons in a group labelled by `labelId`. A radio cannot be unticked, so an
 * optional choice with no default gets a first "No answer" (sent as nothing); a required
 * one starts with none ticked and the browser refuses the form until one is.
 * @param {{ value: unknown, label: string }[]} choices
 * @param {{ name: string, labelId: string, required: boolean, fallback: unknown }} options
 */
function radios(choices, { name, labelId, required, fallback }) {
  const group = document.createElement("div");
  group.className = "choices";
  group.setAttribute("role", "radiogroup");
  group.setAttribute("aria-labelledby", labelId);
  if (required) group.setAttribute("aria-required", "true");
  const chosen = choices.findIndex((choice) => choice.value === fallback);
  const withNone = !required && chosen < 0;
  const radio = (value, checked) => {
    const box = document.createElement("input");
    box.type = "radio";
    box.name = name;
    box.value = value;
    box.checked = checked;
    return box;
  };
  if (withNone) group.append(boxLabel(radio("", true), "No answer"));
  const boxes = choices.map((choice, i) => {
    const box = radio(String(i), i === chosen);
    group.append(boxLabel(box, choice.label));
    return box;
  });
  if (required && boxes[0]) boxes[0].required = true;
  const read = () => {
    const index = boxes.findIndex((box) => box.checked);
    return index < 0 ? undefined : choices[index]?.value;
  };
  const first = /** @type {HTMLInputElement} */ (group.querySelector("input"));
  return { element: group, input: first, read };
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
    const box = document.createElement("input");
    box.type = "checkbox";
    box.name = name;
    box.value = String(choice.value);
    box.checked = defaults.includes(choice.value);
    group.append(boxLabel(box, choice.label));
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
