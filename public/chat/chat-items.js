// The chat's list of items (#messages), shared by chat-view.js and tool-cards.js: where a
// new item goes (last, before the messages waiting for the connection, or above everything
// while older entries are shown), the last shown line, and the tidying of server sentences.
import { byId } from "../core/dom.js";
import { scrollToEnd } from "./follow.js";

export const list = byId("messages");

/** While older entries are shown (older-history.js): they go above this item, and nothing scrolls. */
let olderAnchor = null;

/** Whether older entries are being shown (nothing follows the end meanwhile). */
export function showingOlder() {
  return olderAnchor !== null;
}

/** Runs `show` with every new item going above `first`. @param {Element} first @param {() => void} show */
export function aboveAll(first, show) {
  olderAnchor = first;
  try {
    show();
  } finally {
    olderAnchor = null;
  }
}

/** New content: follow.js keeps the end in view while the reader is there. */
export const scroll = scrollToEnd;

/** Server sentences are joined from parts that may end in punctuation already: "lost.)" → "lost)", "lost.." → "lost.". */
export function tidy(text) {
  return String(text ?? "")
    .replace(/(\w)\.(\)[;,.]?)/g, "$1$2")
    .replace(/(?<!\.)([.!?])\.(?=\s|$)/g, "$1");
}

/** Items after an aged one: the newest stay unskipped, so following to the end lands at the real end (messages.css). */
const YOUNG = 12;

export function item(className, turnId) {
  const li = document.createElement("li");
  li.className = className;
  if (turnId) li.dataset.turn = turnId;
  // Messages waiting for the connection stay last; older entries go above the first item.
  list.insertBefore(li, olderAnchor ?? list.querySelector(":scope > .pending"));
  // An older entry shown above everything is aged at once (below: new items age the ones they push up).
  if (olderAnchor) li.classList.add("aged");
  return li;
}

/**
 * Marks the items that insertions pushed past the newest YOUNG, back to the first one marked
 * already. A class on an element or two per insertion: a `:nth-last-child(n + 13)` rule made
 * every insertion restyle the list's items, in the frame that shows the answer's first words
 * too (about 1 ms more before that frame's callbacks ran, issue 37). An item keeps its mark
 * when later ones go (a queued message sent): it was shown, so its size is remembered.
 */
function age() {
  for (let at = list.children.length - YOUNG - 1; at >= 0; at--) {
    const older = list.children[at];
    if (!older || older.classList.contains("aged")) break;
    older.classList.add("aged");
  }
}
// Every insertion, whoever made it (an entry, a tool card, a usage line, a pending message), before the frame that shows it.
new MutationObserver(age).observe(list, { childList: true });

/** The last shown line (not counting queued messages). */
export function lastLine() {
  const settled = list.querySelectorAll(":scope > li:not(.pending)");
  return settled[settled.length - 1];
}
