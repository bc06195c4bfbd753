// Stop, by role (docs/people.md): the owner and approvers stop any turn, a participant only
// the turn their own message started, a viewer none (people/roles.js hides theirs). Which
// person started a turn is its user entry's `author`; until that entry is in, a participant's
// Stop stays hidden rather than offer what the Worker would refuse.
import { state, subscribe } from "../core/state.js";
import { myKey } from "./authors.js";
import { roleOf } from "./roles.js";

/** Who wrote each turn's message, by turn id (this chat's, as its entries came). @type {Map<string, string | undefined>} */
const starters = new Map();

function draw() {
  const turn = state.turnId;
  const others = roleOf() === "participant" && turn !== null && (!starters.has(turn) || starters.get(turn) !== myKey());
  document.body.classList.toggle("others-turn", others);
}

/** A user entry (history or live): the turn it opened is its author's. @param {import("../core/types").HistoryEntry} entry */
export function noteTurnStarter(entry) {
  if (entry.kind !== "user" || !entry.turnId || starters.has(entry.turnId)) return;
  starters.set(entry.turnId, entry.author?.key);
  draw();
}

export function setupTurnStop() {
  subscribe(["turnId", "you", "people"], draw);
  // Another chat's turns are not this one's.
  subscribe(["sessionId"], () => starters.clear());
}
