// Following the conversation: new content scrolls the list to its end only while the
// reader is there. Scrolling up (wheel, keys, touch, the scrollbar) stops following, so a
// streamed answer never pulls the reader back down; scrolling back to the end, or the
// "Jump to latest" button, follows again. Opening a session and sending a message follow too.
import { byId } from "../core/dom.js";

const list = byId("messages");
const jump = byId("jump-latest");
/** Within this many pixels of the end counts as at the end (zoom gives fractional positions). */
const NEAR_END_PX = 24;

let following = true;
let lastTop = 0;

const distanceToEnd = () => list.scrollHeight - list.scrollTop - list.clientHeight;

// The button's state is written only when it changes: a write of the same value is still a
// style invalidation, and this runs on every scroll and every streamed frame (issue 37).
function showJump() {
  const hidden = following || distanceToEnd() <= NEAR_END_PX;
  if (jump.hidden !== hidden) jump.hidden = hidden;
  // Just above the end of the list, however tall the message box under it has grown.
  if (!hidden && jump.offsetParent) {
    const below = jump.offsetParent.getBoundingClientRect().bottom - list.getBoundingClientRect().bottom;
    const bottom = `${Math.max(0, below) + 12}px`;
    if (jump.style.bottom !== bottom) jump.style.bottom = bottom;
  }
}

// Only the reader moves the list up: the page scrolls it down (to the end) or not at all.
// A list that shrinks clamps its position, still at the end.
list.addEventListener(
  "scroll",
  () => {
    const top = list.scrollTop;
    if (top < lastTop - 1) following = distanceToEnd() <= 1;
    else if (distanceToEnd() <= NEAR_END_PX) following = true;
    lastTop = top;
    showJump();
  },
  { passive: true },
);

/** New content arrived: keep the end in view if the reader is following it. */
export function scrollToEnd() {
  if (following) {
    list.scrollTop = list.scrollHeight;
    lastTop = list.scrollTop;
  }
  showJump();
}

/** Follow again from now on (a session opened, the user sent a message, the button). */
export function followEnd() {
  following = true;
  scrollToEnd();
}

/** Whether new content scrolls into view (for tests and callers that add content themselves). */
export const isFollowing = () => following;

jump.addEventListener("click", () => {
  followEnd();
  byId("composer-input").focus({ preventScroll: true });
});

/** The page shows something above the end on purpose (a found message): new content does not pull it away. */
export function stopFollowing() {
  following = false;
  showJump();
}
