// "Shared with me" under the person's own chats: the chats others invited them to
// (GET /api/shared-with-me, docs/people.md), each named by its owner and this person's
// role there, opening it like any chat. Read with the load (GET /api/bootstrap), when the tab comes back to the
// front, every INVITE_POLL_MS while it stays there (an invite made meanwhile shows), and after a removal.
import { request } from "../core/api.js";
import { byId } from "../core/dom.js";
import { state, subscribe, update } from "../core/state.js";
import { roleWords } from "./roles.js";

/**
 * How often a page in front looks for a new invite. No channel reaches a person's pages from
 * another person's chat (the page's one socket is to the chat it shows), and an invite is not
 * urgent: one small read of the person's list twice a minute, and none while the tab is hidden.
 */
const INVITE_POLL_MS = 30_000;

/** @param {{ open: (id: string) => void }} page */
export function setupSharedChats(page) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;

  async function load() {
    try {
      const answer = await request("/api/shared-with-me");
      if (answer.ok && Array.isArray(answer.data?.chats)) update({ shared: answer.data.chats });
    } catch {
      // Offline: keep the list we have.
    }
  }

  /** The next look, counted from now: only while signed in and in front. */
  function schedule() {
    clearTimeout(timer);
    timer = undefined;
    if (!document.hidden && state.active)
      timer = setTimeout(() => {
        void load().finally(schedule);
      }, INVITE_POLL_MS);
  }
  subscribe(["active"], schedule);

  subscribe(["shared", "sessionId", "active"], () => {
    const chats = state.active ? state.shared : [];
    byId("shared-box").hidden = chats.length === 0;
    byId("shared-sessions").replaceChildren(
      ...chats.map((chat) => {
        const li = document.createElement("li");
        li.dataset.session = chat.sessionId;
        li.classList.toggle("current", chat.sessionId === state.sessionId);
        const open = document.createElement("button");
        open.type = "button";
        open.className = "link";
        open.textContent = `${chat.ownerName}'s chat`;
        const role = document.createElement("span");
        role.className = "shared-role";
        role.textContent = roleWords(chat.role).replace(/^(a|an|the) /, "");
        // Said to a screen reader as one line: "alice's chat, participant"; shown as two.
        const comma = document.createElement("span");
        comma.className = "visually-hidden";
        comma.textContent = ", ";
        open.append(comma, role);
        open.title = `${chat.ownerName} invited you as ${roleWords(chat.role)} on ${new Date(chat.addedAt).toLocaleString()}`;
        if (chat.sessionId === state.sessionId) open.setAttribute("aria-current", "true");
        open.addEventListener("click", () => page.open(chat.sessionId));
        li.append(open);
        return li;
      }),
    );
  });

  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && state.active) void load();
    schedule();
  });

  /** This person was removed from a chat (its socket closed with 4403): it leaves the list now. @param {string} id */
  function forget(id) {
    update({ shared: state.shared.filter((c) => c.sessionId !== id) });
    void load();
  }

  /** Whether `id` is a chat shared with this person (not theirs). @param {string | null} id */
  const isShared = (id) => state.shared.some((c) => c.sessionId === id);

  return { load, forget, isShared };
}
