// The People dialog (docs/people.md), the chat owner's: invite someone of this deployment
// by the name they sign in with and a role, see who is invited (here, or not come yet),
// change a role (applies at once on their open pages) or remove them (their pages close
// the chat). Every refusal shows on the status line as the Worker typed it
// (unknown_person, too_many_invites, invites_unavailable…); the dialog stays usable.
import { describeError, requestOrRefusal } from "../core/api.js";
import { byId } from "../core/dom.js";
import { state, subscribe } from "../core/state.js";
import { confirmAction } from "../dialogs/dialogs.js";
import { roleWords } from "./roles.js";

/** @typedef {{ key: string, name: string, role: "viewer" | "participant" | "approver", joined?: number, here?: boolean }} Member */

const ROLES = /** @type {const} */ (["viewer", "participant", "approver"]);
const LABELS = { viewer: "Viewer", participant: "Participant", approver: "Approver" };

export function setupPeopleDialog() {
  const dialog = /** @type {HTMLDialogElement} */ (byId("people-dialog"));
  const say = (/** @type {string} */ text) => (byId("people-status").textContent = text);
  /** The chat the dialog acts on: fixed while it is open, whatever opens meanwhile. */
  let sessionId = /** @type {string | null} */ (null);
  const base = () => `/sessions/${encodeURIComponent(sessionId ?? "")}/people`;

  /** @param {Member} member */
  function row(member) {
    const li = document.createElement("li");
    li.dataset.person = member.name;
    const head = document.createElement("div");
    head.className = "row-head";
    const name = document.createElement("span");
    name.className = "person-name";
    name.textContent = member.name;
    const status = document.createElement("span");
    status.className = "hint person-status";
    status.textContent = member.here ? "here now" : member.joined ? "not here" : "invited, not come yet";
    const select = document.createElement("select");
    select.setAttribute("aria-label", `Role of ${member.name}`);
    for (const role of ROLES) select.append(new Option(LABELS[role], role, false, role === member.role));
    select.addEventListener("change", () => void changeRole(member, /** @type {Member["role"]} */ (select.value), select));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "revoke danger";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", `Remove ${member.name}`);
    remove.addEventListener("click", () => void removeMember(member));
    head.append(name, status, select, remove);
    li.append(head);
    return li;
  }

  async function load() {
    if (!sessionId) return;
    const answer = await requestOrRefusal(base());
    if (!answer.ok) return say(describeError(answer.status, answer.data));
    /** @type {Member[]} */
    const members = answer.data?.members ?? [];
    const list = byId("people-list");
    list.replaceChildren(...members.map(row));
    if (members.length === 0) {
      const empty = document.createElement("li");
      empty.className = "empty hint";
      empty.textContent = "Nobody yet: this chat is yours alone.";
      list.append(empty);
    }
    byId("people-list-title").textContent = `Invited (${members.length} of ${answer.data?.cap ?? "?"})`;
  }

  /** @param {SubmitEvent} event */
  async function invite(event) {
    event.preventDefault();
    const input = /** @type {HTMLInputElement} */ (byId("people-name"));
    const name = input.value.trim();
    if (!name) {
      say("Type the name they sign in with.");
      input.focus();
      return;
    }
    const role = /** @type {HTMLSelectElement} */ (byId("people-role")).value;
    const answer = await requestOrRefusal(base(), { method: "POST", body: { name, role } });
    if (!answer.ok) {
      say(`Could not invite ${name}: ${describeError(answer.status, answer.data)}`);
      return;
    }
    input.value = "";
    say(
      `${answer.data?.name ?? name} ${answer.status === 201 ? "invited" : "now has that role"}: ${LABELS[/** @type {Member["role"]} */ (role)] ?? role}. They find this chat under "Shared with me".`,
    );
    await load();
  }

  /** @param {Member} member @param {Member["role"]} role @param {HTMLSelectElement} select */
  async function changeRole(member, role, select) {
    const answer = await requestOrRefusal(`${base()}/${encodeURIComponent(member.key)}`, { method: "PATCH", body: { role } });
    if (!answer.ok) {
      select.value = member.role;
      return say(`Could not change ${member.name}'s role: ${describeError(answer.status, answer.data)}`);
    }
    member.role = role;
    say(`${member.name} is now ${roleWords(role)}: it applies on their open pages at once.`);
  }

  /** @param {Member} member */
  async function removeMember(member) {
    const sure = await confirmAction({
      title: `Remove ${member.name}?`,
      text: `${member.name} leaves this chat at once: their open pages close it, and it leaves their list.`,
      confirm: "Remove",
    });
    if (!sure) return;
    const answer = await requestOrRefusal(`${base()}/${encodeURIComponent(member.key)}`, { method: "DELETE" });
    say(answer.ok || answer.status === 404 ? `${member.name} removed.` : `Could not remove ${member.name}: ${describeError(answer.status, answer.data)}`);
    await load();
  }

  /** Opens it on chat `id` (one of the person's own; the open one when not given). @param {string | null} [id] */
  async function open(id = state.sessionId) {
    if (!id) return;
    sessionId = id;
    say("");
    byId("people-list").replaceChildren();
    if (!dialog.open) dialog.showModal();
    await load();
  }

  byId("people-invite").addEventListener("submit", (event) => void invite(/** @type {SubmitEvent} */ (event)));
  byId("people-open").addEventListener("click", () => void open());
  byId("people-close").addEventListener("click", () => dialog.close());
  // Someone came or went while the dialog is open: their row's status follows, in place
  // (a reload would redraw the rows under a role select being chosen).
  subscribe(["people"], () => {
    if (!dialog.open || sessionId !== state.sessionId) return;
    for (const person of state.people?.members ?? []) {
      const status = byId("people-list").querySelector(`li[data-person="${CSS.escape(person.name)}"] .person-status`);
      if (status) status.textContent = person.here ? "here now" : person.invited ? "invited, not come yet" : "not here";
    }
  });
  return { open };
}
