// Who is in the open chat, compactly in the chat's header (the `people` frame, docs/people.md):
// one chip per person here, the owner first, dimmed when their page is hidden. The owner's
// copy of the frame also lists those invited who have not come: they are not "here", so they
// show in the People dialog, not in the header. The People button is the owner's alone.
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";
import { isOwner, roleWords } from "./roles.js";

/** @typedef {{ key: string, name: string, here: boolean, visible: boolean, role: import("../core/state.js").Role }} Present */

/** The people here, the owner first (the frame says who; the page only orders them). @returns {Present[]} */
function here() {
  const people = state.people;
  if (!people) return [];
  /** @type {Present[]} */
  const all = [{ ...people.owner, role: "owner" }, ...people.members];
  return all.filter((p) => p.here);
}

/** @param {Present} person */
function chip(person) {
  const li = document.createElement("li");
  li.className = "person";
  li.dataset.person = person.name;
  li.classList.toggle("away", !person.visible);
  li.classList.toggle("me", person.key === state.you?.key);
  const mark = document.createElement("span");
  mark.className = "initial";
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = [...person.name][0]?.toUpperCase() ?? "?";
  const name = document.createElement("span");
  name.className = "name";
  // The whole sentence for a screen reader; the chip shows the initial and, when there is room, the name.
  name.textContent = person.name;
  const role = document.createElement("span");
  role.className = "visually-hidden";
  role.textContent = `, ${roleWords(person.role)}${person.visible ? "" : ", away"}`;
  li.title = `${person.name}: ${roleWords(person.role)}${person.visible ? "" : " (page hidden)"}`;
  li.append(mark, name, role);
  return li;
}

export function setupPresence() {
  subscribe(["people", "you", "sessionId", "sessions"], () => {
    const list = byId("presence");
    // A chat nobody else is in shows no one: presence is for shared chats.
    const people = state.people && state.people.members.length > 0 ? here() : [];
    list.replaceChildren(...people.map(chip));
    list.hidden = people.length === 0;
    // The People dialog is the owner's: a chat of their own list, never one shared with them.
    const own = isOwner() && state.sessions.some((s) => s.id === state.sessionId);
    byId("people-open").hidden = !own;
    // Nobody invited yet: at phone width the button gives its room to the account's (the chat's menu has People…).
    byId("people-open").classList.toggle("alone", (state.people?.members.length ?? 0) === 0);
  });
}
