// An answer as it streams in: rendered at most once a frame, and at most BUDGET new
// characters a frame. The text can arrive much faster than the page draws (a model
// or a reconnect sends kilobytes at once); a frame then renders the next BUDGET
// characters and asks for another, so no frame's work grows with the burst, and the
// page stays responsive while it catches up (markdown.js re-parses only the open tail,
// so a frame's cost does not grow with the answer either). When the answer is final,
// the element leaves the streaming state once everything is shown.
import { renderMarkdownInto } from "./markdown.js";

/** New characters rendered per frame: 1.5 KB, a few milliseconds of parsing, sanitizing and layout on a phone-class CPU. */
export const BUDGET = 1536;

/**
 * @param {HTMLElement} el the message (`.msg.assistant.streaming`)
 * @param {HTMLElement} body where the Markdown goes
 * @param {() => void} rendered called after each frame's render (to keep the end in view)
 */
export function createStream(el, body, rendered) {
  let text = "";
  let shown = "";
  /** @type {{ partial: boolean } | null} */
  let final = null;
  let scheduled = false;

  function settled() {
    if (!final) return;
    el.classList.toggle("partial", final.partial);
    el.classList.remove("streaming");
  }

  function frame() {
    scheduled = false;
    if (!el.isConnected) return;
    // A continuation grows by at most BUDGET characters; anything else (a stored version that differs) is rendered whole.
    const next = text.startsWith(shown) && text.length - shown.length > BUDGET ? text.slice(0, shown.length + BUDGET) : text;
    if (next !== shown) {
      renderMarkdownInto(body, next);
      shown = next;
    }
    if (shown !== text) schedule();
    else settled();
    rendered();
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(frame);
  }

  return {
    /** The whole text so far. @param {string} whole */
    push(whole) {
      text = whole;
      schedule();
    },
    /** The text is final (the stored entry, or the turn ended). @param {string} whole @param {boolean} partial cut short */
    finish(whole, partial) {
      text = whole;
      final = { partial };
      // Shown already (the usual case): settled now, not a frame later.
      if (shown === text) settled();
      else schedule();
    },
  };
}
