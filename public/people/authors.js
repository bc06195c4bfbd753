// Who did what in a shared chat (docs/people.md): a user message someone else sent shows
// their name above it (the entry's `author`), an answered approval says who answered it
// (`approval_resolved.by`), and a question this page may not answer says who can.
import { state } from "../core/state.js";
import { isOwner, whoMayAnswer } from "./roles.js";

/** This page's person's key: `you`, or the owner's as the people frame names them. */
export function myKey() {
  return state.you?.key ?? (isOwner() ? state.people?.owner.key : undefined);
}

/**
 * A user message someone else wrote: their name on it (a message of this page's person stays unnamed, as in a chat of one).
 * @param {HTMLElement} li @param {{ key: string, name: string } | undefined} author
 */
export function markAuthor(li, author) {
  if (!author || author.key === myKey()) return;
  li.classList.add("by-other");
  li.dataset.author = author.name;
  const badge = document.createElement("span");
  badge.className = "author-badge";
  badge.textContent = author.name;
  li.prepend(badge);
}

/** @param {string} callId */
const cardOf = (callId) => document.querySelector(`#messages li.tool-card[data-call-id="${CSS.escape(callId)}"]`);

/** A line under a card's name: who answered, or who may. @param {string} callId @param {string} text */
function noteOnCard(callId, text) {
  const summary = cardOf(callId)?.querySelector("summary");
  if (!summary) return;
  let note = summary.querySelector(".answer-note");
  if (!note) {
    note = document.createElement("span");
    note.className = "answer-note";
    summary.append(note);
  }
  note.textContent = text;
}

/** A question this page may not answer (a viewer's, a participant's): its card says who can. @param {string} callId */
export function noteWhoMayAnswer(callId) {
  noteOnCard(callId, `${whoMayAnswer()} this`);
}

/** @param {import("../core/types").Frame<"approval_resolved">} message */
export function noteAnsweredBy(message) {
  if (!message.by) return;
  const who = message.by.key === myKey() ? "you" : message.by.name;
  noteOnCard(message.callId, `${message.approved ? "allowed" : "denied"} by ${who}`);
}
