// A code block that scrolls sideways must be reachable by the keyboard, or a keyboard
// user cannot read its long lines (axe: scrollable-region-focusable). Only a block wider
// than its column gets a Tab stop, so short code adds none; whether it is wider changes
// with the window and while an answer streams, so one ResizeObserver watches them all.

/** @param {HTMLElement} pre @param {boolean} scrolls */
function mark(pre, scrolls) {
  if (scrolls === (pre.tabIndex === 0)) return;
  if (scrolls) {
    pre.tabIndex = 0;
    pre.setAttribute("role", "region");
    const lang = pre.closest(".code-block")?.getAttribute("data-lang");
    pre.setAttribute("aria-label", lang ? `${lang} code, scrolls sideways` : "Code, scrolls sideways");
  } else {
    pre.removeAttribute("tabindex");
    pre.removeAttribute("role");
    pre.removeAttribute("aria-label");
  }
}

// All widths are read before any attribute is written: a write between two reads would make
// each read lay the page out again (dozens of blocks resize at once when the window does).
const watcher = new ResizeObserver((entries) => {
  /** @type {[HTMLElement, boolean][]} */
  const seen = [];
  for (const entry of entries) {
    const pre = /** @type {HTMLElement} */ (entry.target);
    // A block replaced while its answer streamed: no longer watched.
    if (!pre.isConnected) watcher.unobserve(pre);
    else seen.push([pre, pre.scrollWidth > pre.clientWidth]);
  }
  for (const [pre, scrolls] of seen) mark(pre, scrolls);
});

/** Watches a code block's <pre> from now on (it may not be in the page yet). @param {HTMLElement} pre */
export function watchCodeScroll(pre) {
  watcher.observe(pre);
}
