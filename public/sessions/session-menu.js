// The one menu of the chat list's rows (session-list.js): a popover in the top layer,
// so neither the sidebar's scrolling nor a phone's drawer clips it, kept inside the
// sidebar's DOM so a tap in it is a tap in the sidebar (which a phone's drawer stays
// open for). Operated as a menu is: arrows, Home and End move, Enter or Space runs
// an item, Escape or Tab closes it and focus goes back to the row.
import { byId } from "../core/dom.js";

/** @typedef {{ label: string, name: string, run: () => void, danger?: boolean }} MenuItem */

/** @type {HTMLElement | null} */
let menu = null;
/** @type {((refocus: boolean) => void) | null} */
let closing = null;

function build() {
  const el = document.createElement("div");
  el.id = "session-menu";
  el.className = "session-menu";
  el.setAttribute("role", "menu");
  el.setAttribute("popover", "manual");
  el.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
    const items = /** @type {HTMLElement[]} */ ([...el.querySelectorAll("[role=menuitem]")]);
    const at = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    const go = {
      ArrowDown: items[(at + 1) % items.length],
      ArrowUp: items[(at - 1 + items.length) % items.length],
      Home: items[0],
      End: items[items.length - 1],
    }[event.key];
    if (go) {
      event.preventDefault();
      go.focus();
    } else if (event.key === "Escape") {
      // Ours alone: the page's Escape (closing a phone's drawer, stopping an answer) stays put.
      event.preventDefault();
      event.stopPropagation();
      closeRowMenu(true);
    } else if (event.key === "Tab") {
      event.preventDefault();
      closeRowMenu(true);
    }
  });
  // A press anywhere else closes it (in the capture phase: before that press does anything else).
  document.addEventListener(
    "pointerdown",
    (event) => {
      if (menu && !menu.contains(/** @type {Node} */ (event.target))) closeRowMenu(false);
    },
    true,
  );
  addEventListener("resize", () => closeRowMenu(false));
  byId("sidebar").append(el);
  return el;
}

/**
 * Opens the menu at a point (a right-click, a long press) or under an element (the ⋯
 * button, the keyboard), its first item focused.
 * @param {{ label: string, items: MenuItem[], at: { x: number, y: number } | HTMLElement, onClose: (refocus: boolean) => void }} options
 */
export function openRowMenu({ label, items, at, onClose }) {
  closeRowMenu(false);
  menu ??= build();
  const el = menu;
  el.setAttribute("aria-label", label);
  el.replaceChildren(
    ...items.map((item) => {
      const b = document.createElement("button");
      b.type = "button";
      b.setAttribute("role", "menuitem");
      b.tabIndex = -1;
      b.dataset.action = item.name;
      // Not `.danger`: that one is a filled red button (and dark text in the dark theme).
      b.className = item.danger ? "destructive" : "";
      b.textContent = item.label;
      b.addEventListener("click", () => {
        closeRowMenu(false);
        item.run();
      });
      return b;
    }),
  );
  closing = onClose;
  el.showPopover();
  place(el, at);
  /** @type {HTMLElement | null} */ (el.querySelector("[role=menuitem]"))?.focus();
}

/** Closes the menu, if open; `refocus`: focus goes back to its row. @param {boolean} [refocus] */
export function closeRowMenu(refocus = false) {
  if (!menu?.matches(":popover-open")) return;
  menu.hidePopover();
  const done = closing;
  closing = null;
  done?.(refocus);
}

/** Beside the point or under the element, kept inside the window. @param {HTMLElement} el @param {{ x: number, y: number } | HTMLElement} at */
function place(el, at) {
  const box = at instanceof HTMLElement ? at.getBoundingClientRect() : { left: at.x, right: at.x, top: at.y, bottom: at.y };
  const { width, height } = el.getBoundingClientRect();
  const margin = 4;
  const left = Math.max(margin, Math.min(at instanceof HTMLElement ? box.right - width : box.left, innerWidth - width - margin));
  const below = box.bottom + margin;
  const top = below + height <= innerHeight - margin ? below : Math.max(margin, box.top - height - margin);
  el.style.left = `${left}px`;
  el.style.top = `${top}px`;
}
