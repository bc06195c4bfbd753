// What this page may do in the open chat, by its person's role (docs/people.md): the
// Worker refuses anything else with `role_forbidden`, so the page hides it and says why
// instead of offering a button that can only fail. A role change (`you`) applies at once.
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";

/** @typedef {import("../core/state.js").Role} Role */

/** This page's role here: a chat without `you` is the person's own. @returns {Role} */
export const roleOf = () => state.you?.role ?? "owner";
export const isOwner = () => roleOf() === "owner";
/** Viewers only watch. */
export const maySend = () => roleOf() !== "viewer";
/** Approvals and form questions are the owner's and approvers'. */
export const mayAnswer = () => roleOf() === "owner" || roleOf() === "approver";
/** The chat's owner, by name, as the page knows them. */
export const ownerName = () => state.people?.owner.name ?? "the owner";

/** Who may answer a question this page may not: said on its card. */
export const whoMayAnswer = () => `${ownerName()} or an approver can answer`;

const ROLE_WORDS = { viewer: "a viewer", participant: "a participant", approver: "an approver", owner: "the owner" };
/** @param {Role} role */
export const roleWords = (role) => ROLE_WORDS[role];

/** The box's own hint (index.html), put back when this page may send again. */
const PLACEHOLDER = "Ask something… (@ a resource, / a prompt)";

/** The composer as the role allows: a viewer's is read-only, with the sentence why. */
export function setupRoleComposer() {
  subscribe(["you", "people", "sessionId"], () => {
    const input = /** @type {HTMLTextAreaElement} */ (byId("composer-input"));
    const note = byId("role-note");
    const viewer = !maySend();
    input.readOnly = viewer;
    input.placeholder = viewer ? "Viewers can't send messages" : PLACEHOLDER;
    input.setAttribute("aria-describedby", viewer ? "role-note" : "");
    if (!viewer) input.removeAttribute("aria-describedby");
    for (const id of ["send", "attach", "attach-file"]) /** @type {HTMLButtonElement} */ (byId(id)).disabled = viewer;
    document.body.classList.toggle("read-only-chat", viewer);
    // Someone else's chat: what is its owner's alone (edit, regenerate, servers, schedules, the console) is not offered.
    document.body.classList.toggle("guest-chat", !isOwner());
    let text = "";
    if (viewer) text = `You're a viewer in ${ownerName()}'s chat: you see it live but can't send messages. ${ownerName()} can make you a participant.`;
    else if (roleOf() === "participant") text = `You're a participant in ${ownerName()}'s chat: you can send messages; ${whoMayAnswer()} tool approvals.`;
    note.textContent = text;
    note.hidden = !text;
  });
}
