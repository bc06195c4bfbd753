// The message box's popup list (the `@` resource picker and the `/` prompt list):
// a listbox under the box's control, driven from the keyboard (Up, Down, Enter or
// Tab to choose, Escape to close) or the mouse. Options are plain data; the caller
// says what to show and what choosing one does.
import { byId } from "../core/dom.js";

const list = byId("composer-picker");
const input = byId("composer-input");
let options = [];
let active = 0;
let onChoose = null;

/**
 * Shows `items` ({id, label, detail, hint}) under the box; `choose(item)` runs on
 * a choice. An empty list shows `empty` instead.
 * @param {any[]} items
 * @param {(item: any) => void} choose
 * @param {{ title?: string, empty?: string }} [options]
 */
export function showPicker(items, choose, { title, empty = "Nothing matches." } = {}) {
  options = items;
  onChoose = choose;
  active = 0;
  list.replaceChildren();
  list.setAttribute("aria-label", title ?? "Suggestions");
  if (title) {
    const head = document.createElement("li");
    head.className = "picker-title";
    head.setAttribute("role", "presentation");
    head.textContent = title;
    list.append(head);
  }
  items.forEach((item, i) => {
    const li = document.createElement("li");
    li.id = `picker-option-${i}`;
    li.className = "picker-option";
    li.setAttribute("role", "option");
    li.dataset.id = item.id;
    const label = document.createElement("span");
    label.className = "picker-label";
    label.textContent = item.label;
    li.append(label);
    if (item.hint) {
      const hint = document.createElement("span");
      hint.className = "picker-hint";
      hint.textContent = item.hint;
      li.append(hint);
    }
    if (item.detail) {
      const detail = document.createElement("span");
      detail.className = "picker-detail";
      detail.textContent = item.detail;
      li.append(detail);
    }
    // mousedown, not click: the box keeps its focus (and its caret).
    li.addEventListener("mousedown", (event) => {
      event.preventDefault();
      pick(i);
    });
    list.append(li);
  });
  if (items.length === 0) {
    const li = document.createElement("li");
    li.className = "picker-empty";
    li.setAttribute("role", "presentation");
    li.textContent = empty;
    list.append(li);
  }
  list.hidden = false;
  // The box is a textarea (a message has lines): no combobox role, which ARIA allows on
  // an <input> only, so no aria-expanded either; the list it controls and the option
  // it points at (aria-activedescendant) tell a screen reader what is offered.
  highlight();
}

export function hidePicker() {
  if (list.hidden) return;
  list.hidden = true;
  options = [];
  onChoose = null;
  input.removeAttribute("aria-activedescendant");
}

/** Handles a key of the box while the list shows; true when it was the list's. */
export function pickerKey(event) {
  if (list.hidden) return false;
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    if (options.length > 0) active = (active + (event.key === "ArrowDown" ? 1 : options.length - 1)) % options.length;
    highlight();
  } else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey && options.length > 0) {
    pick(active);
  } else if (event.key === "Escape") {
    hidePicker();
  } else {
    return false;
  }
  event.preventDefault();
  // The box's own Enter (send) and Escape (cancel) must not also run.
  event.stopImmediatePropagation();
  return true;
}

function pick(index) {
  const item = options[index];
  const choose = onChoose;
  hidePicker();
  if (item && choose) choose(item);
}

function highlight() {
  const items = list.querySelectorAll(".picker-option");
  items.forEach((li, i) => {
    li.setAttribute("aria-selected", String(i === active));
  });
  const current = items[active];
  if (current) {
    input.setAttribute("aria-activedescendant", current.id);
    current.scrollIntoView({ block: "nearest" });
  } else {
    input.removeAttribute("aria-activedescendant");
  }
}

document.addEventListener("mousedown", (event) => {
  if (!list.hidden && event.target !== input && !list.contains(event.target)) hidePicker();
});
