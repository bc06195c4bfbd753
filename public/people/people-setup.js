// A shared chat's parts of the page, wired in one place (app.js calls this once): "Shared with
// me" in the sidebar, the owner's People dialog, presence in the header, what the person's role
// lets the message box and Stop do, and what happens when the owner removes this person.
import { state } from "../core/state.js";
import { setupPeopleDialog } from "./people-dialog.js";
import { setupPresence } from "./presence.js";
import { setupRoleComposer } from "./roles.js";
import { setupSharedChats } from "./shared-chats.js";
import { setupTurnStop } from "./turn-stop.js";

/**
 * @param {{ open: (id: string) => void, lost: (id: string) => Promise<void>, showAlert: (text: string) => void }} page
 * `open` a chat; `lost`: the chat shown is gone, another one opens (sessions.js).
 */
export function setupPeople({ open, lost, showAlert }) {
  const shared = setupSharedChats({ open });
  const dialog = setupPeopleDialog();
  setupPresence();
  setupRoleComposer();
  setupTurnStop();

  /** The owner removed this person from a shared chat (its socket closed with 4403): said once, and another chat opens. @param {string} id */
  async function removedFrom(id) {
    const owner = state.people?.owner.name ?? state.shared.find((c) => c.sessionId === id)?.ownerName;
    showAlert(`You were removed from ${owner ? `${owner}'s` : "this"} chat: it is no longer shared with you.`);
    shared.forget(id);
    if (id === state.sessionId) await lost(id);
  }

  return { shared, openDialog: dialog.open, removedFrom };
}
