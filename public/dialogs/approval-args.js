// A tool call's arguments as a person reads them, in the approval dialog: one row per
// argument, its name and its value; a string as its text (a multi-line one as a block
// with its line breaks, long ones wrapped, never escaped JSON), a number or true/false
// as written, an object or list as indented JSON. All as text (textContent).

/** @param {unknown} value */
function valueElement(value) {
  if (typeof value === "string") {
    const multiLine = value.includes("\n");
    const el = document.createElement(multiLine ? "pre" : "span");
    el.className = multiLine ? "arg-text arg-block" : "arg-text";
    el.textContent = value;
    if (value === "") {
      el.textContent = "(empty)";
      el.classList.add("arg-empty");
    }
    return el;
  }
  if (value !== null && typeof value === "object") {
    const el = document.createElement("pre");
    el.className = "arg-json arg-block";
    el.textContent = JSON.stringify(value, null, 2);
    return el;
  }
  const el = document.createElement("code");
  el.className = "arg-scalar";
  el.textContent = String(value);
  return el;
}

/**
 * Fills `list` (a <dl>) with the arguments; "No arguments." when there are none.
 * @param {HTMLElement} list @param {Record<string, unknown> | undefined} args
 */
export function showArguments(list, args) {
  const entries = Object.entries(args ?? {});
  list.replaceChildren();
  if (entries.length === 0) {
    // Still a name-value group: a <dl> may hold only those (a bare <p> here is an axe "serious").
    const row = document.createElement("div");
    row.className = "arg-row hint";
    const dt = document.createElement("dt");
    dt.textContent = "No arguments.";
    row.append(dt, document.createElement("dd"));
    list.append(row);
    return;
  }
  for (const [name, value] of entries) {
    const row = document.createElement("div");
    row.className = "arg-row";
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.append(valueElement(value));
    row.append(dt, dd);
    list.append(row);
  }
}
