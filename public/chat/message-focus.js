// Opening a session at one message (a search result's line): the wanted message is
// remembered until that session's history is shown, then scrolled into view and outlined
// (until the chat is drawn again: it stays findable when focus moves to the message
// box). A message not on the shown path (an older version of an edited turn) leaves the
// session open at its end.
import { byId } from "../core/dom.js";
import { stopFollowing } from "./follow.js";

/** @type {{ sessionId: string, seq: number } | null} */
let wanted = null;

/** @param {string} sessionId @param {number | null | undefined} seq */
export function focusMessageLater(sessionId, seq) {
  wanted = typeof seq === "number" ? { sessionId, seq } : null;
}

/** The history of `sessionId` is shown: scroll to the wanted message, if any. @param {string | null} sessionId */
export function focusWantedMessage(sessionId) {
  if (!wanted || wanted.sessionId !== sessionId) return;
  const seq = wanted.seq;
  wanted = null;
  const li = byId("messages").querySelector(`li[data-seq="${seq}"]`);
  if (!li) return;
  stopFollowing();
  li.scrollIntoView({ block: "center" });
  li.classList.add("found");
  li.setAttribute("tabindex", "-1");
  li.focus({ preventScroll: true });
}
