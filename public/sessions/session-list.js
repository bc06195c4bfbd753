// The chat list in the sidebar, calm: a row is its title, which opens the chat; the
// row's actions (pin, share, rename, delete) sit behind one menu (session-menu.js),
// opened by the row's ⋯ button, a right-click, a long press on touch, or Shift+F10 /
// the context-menu key. The whole list is one Tab stop (a roving tabindex): arrows,
// Home and End move between rows, Enter opens one. Rows are drawn again whenever the
// list changes; the row that had focus keeps it.
import { byId } from "../core/dom.js";
import { groupSessions } from "./session-groups.js";
import { closeRowMenu, openRowMenu } from "./session-menu.js";

/** @typedef {{ id: string, title: string | null, lastActivity?: number, pinned?: boolean }} ListedSession */
/**
 * @typedef {{
 *   onSwitch: (id: string) => void,
 *   onDelete: (id: string, title: string) => void,
 *   onRename: (id: string, title: string) => void,
 *   onPin: (id: string, pinned: boolean) => void,
 *   onShare?: (id: string, title: string) => void,
 *   onPeople?: (id: string) => void,
 * }} RowActions
 */

/** How long a finger rests on a row before its menu opens (as a platform's long press). */
const LONG_PRESS_MS = 500;
/** A finger that moves further than this is scrolling, not pressing. */
const SLOP_PX = 10;

const when = (/** @type {number | undefined} */ ms) => (typeof ms === "number" ? new Date(ms).toLocaleString() : "");

/** The row the list's one Tab stop is on: kept across redraws (the current chat's until the user moves). */
let activeId = /** @type {string | null} */ (null);
/** What each row's menu acts on, by session id (the last drawn list). */
let rows = new Map();
/**
 * The rows drawn last time, by session id. A redraw moves and updates these rather than
 * making new ones: the list changes whenever a turn ends (its time, its title), and a
 * click whose press and release straddle a redraw must still land on the row it began on.
 * @type {Map<string, HTMLLIElement>}
 */
let drawn = new Map();
/** @type {RowActions | null} */
let actions = null;

/**
 * @param {ListedSession[]} list newest first (pinned ones first)
 * @param {string | null} current
 * @param {RowActions} hooks
 */
export function renderSessions(list, current, hooks) {
  if (!actions) setupSessionList();
  actions = hooks;
  const box = byId("sessions");
  const focused = /** @type {HTMLElement | null} */ (box.contains(document.activeElement) ? document.activeElement : null);
  const focusedId = focused?.closest("li")?.dataset.session ?? null;
  rows = new Map(list.map((s) => [s.id, s]));
  if (!activeId || !rows.has(activeId)) activeId = current && rows.has(current) ? current : (list[0]?.id ?? null);
  const before = drawn;
  drawn = new Map();
  if (list.length === 0) {
    box.innerHTML = '<ul><li class="hint">No chats yet.</li></ul>';
    return;
  }
  // One list per group under its heading (session-groups.js): only chats are list items.
  const sections = groupSessions(list).map((group) => {
    const section = document.createElement("section");
    section.className = "session-group";
    const head = document.createElement("h3");
    head.textContent = group.label;
    const ul = document.createElement("ul");
    ul.setAttribute("aria-label", group.label);
    for (const s of group.sessions) {
      const li = drawRow(before.get(s.id) ?? newRow(s.id), s, current);
      drawn.set(s.id, li);
      ul.append(li);
    }
    section.append(head, ul);
    return section;
  });
  box.replaceChildren(...sections);
  // The row that had focus has it again (a pin, a rename, a new title redraws the list).
  if (focusedId && rows.has(focusedId)) rowLink(focusedId)?.focus();
}

/** A row's two buttons: its title (opens the chat) and its ⋯ (the menu). @param {string} id */
function newRow(id) {
  const li = document.createElement("li");
  li.dataset.session = id;
  const open = document.createElement("button");
  open.type = "button";
  open.className = "link";
  open.setAttribute("aria-keyshortcuts", "Shift+F10");
  const more = document.createElement("button");
  more.type = "button";
  more.className = "row-menu";
  more.tabIndex = -1;
  more.textContent = "⋯";
  more.setAttribute("aria-haspopup", "menu");
  more.setAttribute("aria-expanded", "false");
  more.title = "Pin, share, rename or delete";
  li.append(open, more);
  return li;
}

/** A row as the chat is now. @param {HTMLLIElement} li @param {ListedSession} s @param {string | null} current */
function drawRow(li, s, current) {
  const title = titleOf(s);
  li.classList.toggle("current", s.id === current);
  const open = /** @type {HTMLButtonElement} */ (li.querySelector(".link"));
  open.textContent = title;
  open.title = s.lastActivity ? `${title} (last active ${when(s.lastActivity)})` : title;
  open.tabIndex = s.id === activeId ? 0 : -1;
  if (s.id === current) open.setAttribute("aria-current", "true");
  else open.removeAttribute("aria-current");
  /** @type {HTMLButtonElement} */ (li.querySelector(".row-menu")).setAttribute("aria-label", `Actions for chat ${title}`);
  return li;
}

/** @param {ListedSession} s */
const titleOf = (s) => s.title?.trim() || "New chat";

/** @param {string} id */
const rowLink = (id) => /** @type {HTMLButtonElement | null} */ (byId("sessions").querySelector(`li[data-session="${CSS.escape(id)}"] .link`));

/** Moves the one Tab stop (and focus) to a row. @param {HTMLElement} link */
function moveTo(link) {
  for (const other of byId("sessions").querySelectorAll(".link[tabindex='0']")) other.tabIndex = -1;
  link.tabIndex = 0;
  activeId = link.closest("li")?.dataset.session ?? null;
  link.focus();
}

/**
 * The row's menu: its actions, focus back to the row's title when it closes.
 * @param {string} id @param {{ x: number, y: number } | HTMLElement} at
 */
function showMenu(id, at) {
  const s = rows.get(id);
  const link = rowLink(id);
  if (!s || !link || !actions) return;
  const hooks = actions;
  const title = titleOf(s);
  const more = /** @type {HTMLElement} */ (link.parentElement?.querySelector(".row-menu"));
  /** Runs an action once focus is back on the row, so a dialog it opens gives focus back there. */
  const then = (/** @type {() => void} */ run) => () => {
    moveTo(link);
    run();
  };
  const items = [
    { label: s.pinned ? "Unpin" : "Pin to top", name: "pin", run: then(() => hooks.onPin(id, !s.pinned)) },
    ...(hooks.onShare ? [{ label: "Share…", name: "share", run: then(() => hooks.onShare?.(id, title)) }] : []),
    // Who is in it (people/people-dialog.js): a phone's header has no room for the People button until someone is invited.
    ...(hooks.onPeople ? [{ label: "People…", name: "people", run: then(() => hooks.onPeople?.(id)) }] : []),
    { label: "Rename…", name: "rename", run: then(() => hooks.onRename(id, title)) },
    { label: "Delete…", name: "delete", run: then(() => hooks.onDelete(id, title)), danger: true },
  ];
  more.setAttribute("aria-expanded", "true");
  openRowMenu({
    label: `Chat ${title}`,
    items,
    at,
    onClose: (/** @type {boolean} */ refocus) => {
      more.setAttribute("aria-expanded", "false");
      if (refocus && link.isConnected) moveTo(link);
    },
  });
}

/** Wires the list once (at its first drawing): clicks, keys, right-click and long press, on the list's box. */
function setupSessionList() {
  const box = byId("sessions");
  const idOf = (/** @type {EventTarget | null} */ target) =>
    /** @type {HTMLElement | null} */ (target)?.closest?.("li[data-session]")?.getAttribute("data-session") ?? null;
  let pressed = false;

  box.addEventListener("click", (/** @type {MouseEvent} */ event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    const id = idOf(target);
    if (!id || !actions) return;
    // The click that ends a long press is not a tap on the row.
    if (pressed) {
      pressed = false;
      event.preventDefault();
      return;
    }
    if (target.closest(".row-menu")) showMenu(id, /** @type {HTMLElement} */ (target.closest(".row-menu")));
    else if (target.closest(".link")) {
      moveTo(/** @type {HTMLElement} */ (target.closest(".link")));
      actions.onSwitch(id);
    }
  });

  box.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
    const link = /** @type {HTMLElement} */ (event.target).closest?.(".link");
    if (!link) return;
    const links = /** @type {HTMLElement[]} */ ([...box.querySelectorAll(".link")]);
    const at = links.indexOf(/** @type {HTMLElement} */ (link));
    const go = {
      ArrowDown: links[Math.min(at + 1, links.length - 1)],
      ArrowUp: links[Math.max(at - 1, 0)],
      Home: links[0],
      End: links[links.length - 1],
    }[event.key];
    if (go) {
      event.preventDefault();
      moveTo(go);
      return;
    }
    if (event.key === "ContextMenu" || (event.key === "F10" && event.shiftKey)) {
      event.preventDefault();
      const id = idOf(link);
      if (id) showMenu(id, /** @type {HTMLElement} */ (link.parentElement?.querySelector(".row-menu")));
    }
  });

  // Right-click (and a touch browser's own long press, which says contextmenu too).
  box.addEventListener("contextmenu", (/** @type {MouseEvent} */ event) => {
    const id = idOf(event.target);
    if (!id) return;
    event.preventDefault();
    if (pressed) return; // the long press below opened it already
    showMenu(id, event.clientX || event.clientY ? { x: event.clientX, y: event.clientY } : /** @type {HTMLElement} */ (event.target));
  });

  // A long press on touch: the menu opens while the finger rests (no contextmenu event in every browser).
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let start = { x: 0, y: 0 };
  const cancel = () => clearTimeout(timer);
  box.addEventListener("pointerdown", (/** @type {PointerEvent} */ event) => {
    pressed = false;
    const id = idOf(event.target);
    if (event.pointerType !== "touch" || !id) return;
    start = { x: event.clientX, y: event.clientY };
    cancel();
    timer = setTimeout(() => {
      pressed = true;
      showMenu(id, start);
    }, LONG_PRESS_MS);
  });
  box.addEventListener("pointermove", (/** @type {PointerEvent} */ event) => {
    if (Math.hypot(event.clientX - start.x, event.clientY - start.y) > SLOP_PX) cancel();
  });
  for (const end of ["pointerup", "pointercancel", "pointerleave"]) box.addEventListener(end, cancel);
  box.addEventListener("scroll", closeRowMenu);
}
