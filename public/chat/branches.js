// Versions of a turn (docs/page.md: branches): each sent message gets Edit, each turn's
// last answer Regenerate, a failed turn Retry, and a turn that has other versions shows
// "‹ 2/3 ›" to switch between them. Every change is the session's (a `history` frame
// to every tab); the page only asks. Buttons carry their face in `data-face` (drawn by
// CSS), so a message's text stays exactly what was said.
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";

/** @typedef {import("../core/types").ClientMessage} ClientMessage */
/** @typedef {Record<string, { index: number, count: number, siblings: string[] }>} Branches */

const list = byId("messages");
/** @type {(message: ClientMessage) => void} */
let send = () => {};
/** @type {Branches} */
let branches = {};

/** @param {{ send: (message: ClientMessage) => void }} options */
export function setupBranches(options) {
  send = options.send;
  // Nothing to ask while a turn runs: the session would refuse it.
  subscribe(["turnId"], () => list.classList.toggle("turn-running", Boolean(state.turnId)));
}

/**
 * @param {string} face
 * @param {string} label
 * @param {() => void} onClick
 */
function action(face, label, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "turn-action";
  b.dataset.face = face;
  b.setAttribute("aria-label", label);
  b.title = label;
  b.addEventListener("click", () => {
    if (!state.turnId) onClick();
  });
  return b;
}

/** @param {string} turnId */
const ofTurn = (turnId) => [...list.querySelectorAll(":scope > li.msg:not(.pending)")].filter((li) => li instanceof HTMLElement && li.dataset.turn === turnId);

/** After a `history` frame: the versions of the turns shown, and every turn's actions. */
export function showBranches(/** @type {Branches | undefined} */ map) {
  branches = map ?? {};
  const turns = new Set([...list.querySelectorAll(":scope > li.msg[data-turn]")].map((li) => (li instanceof HTMLElement ? li.dataset.turn : "")));
  for (const turnId of turns) if (turnId) decorateTurn(turnId);
}

/** Older turns were shown (older-history.js): their versions join the ones known. */
export function addBranches(/** @type {Branches | undefined} */ map) {
  showBranches({ ...branches, ...(map ?? {}) });
}

/** A turn that ended (or was shown from history) gets its actions. */
export function decorateTurn(/** @type {string} */ turnId) {
  const items = ofTurn(turnId);
  for (const old of items.flatMap((li) => [...li.querySelectorAll(":scope > .turn-actions")])) old.remove();
  const user = items.find((li) => li.classList.contains("user"));
  if (!user) return;
  const userBar = bar();
  const position = branches[turnId];
  if (position) {
    const to = (/** @type {number} */ index) => () => send({ type: "switch_branch", turnId: position.siblings[index - 1] ?? turnId });
    const back = action("‹", "Previous version", to(position.index - 1));
    back.disabled = position.index <= 1;
    const where = document.createElement("span");
    where.className = "branch-position";
    where.dataset.face = `${position.index}/${position.count}`;
    where.setAttribute("aria-label", `version ${position.index} of ${position.count}`);
    const next = action("›", "Next version", to(position.index + 1));
    next.disabled = position.index >= position.count;
    userBar.append(back, where, next);
  }
  userBar.append(action("Edit", "Edit and send again", () => editMessage(user, turnId)));
  user.append(userBar);
  // A failed turn is retried from its error line; one that answered, regenerated from its last answer.
  const error = items.filter((li) => li.classList.contains("error")).pop();
  const answer = items.filter((li) => li.classList.contains("assistant")).pop();
  const target = error ?? answer;
  if (!target) return;
  const answerBar = bar();
  const again = () => send({ type: "regenerate", turnId });
  answerBar.append(error ? action("Retry", "Retry this turn", again) : action("Regenerate", "Answer again", again));
  target.append(answerBar);
}

function bar() {
  const div = document.createElement("div");
  div.className = "turn-actions";
  return div;
}

/** The message as a text box in place; sending it starts a new version of its turn. */
function editMessage(/** @type {HTMLElement} */ user, /** @type {string} */ turnId) {
  if (user.querySelector(".edit-form")) return;
  const form = document.createElement("form");
  form.className = "edit-form";
  const box = document.createElement("textarea");
  box.value = [...user.childNodes]
    .filter((n) => n.nodeType === Node.TEXT_NODE)
    .map((n) => n.textContent)
    .join("");
  box.setAttribute("aria-label", "Edited message");
  box.rows = Math.min(12, Math.max(2, box.value.split("\n").length));
  const save = document.createElement("button");
  save.type = "submit";
  save.textContent = "Send";
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "Cancel";
  cancel.addEventListener("click", () => form.remove());
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = box.value.trim();
    if (!text || state.turnId) return;
    form.remove();
    send({ type: "edit", turnId, text });
  });
  box.addEventListener("keydown", (event) => {
    if (event.key === "Escape") form.remove();
    if (event.key === "Enter" && !event.shiftKey) form.requestSubmit();
  });
  form.append(box, save, cancel);
  user.append(form);
  box.focus();
}
